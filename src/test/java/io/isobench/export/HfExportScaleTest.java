package io.isobench.export;

import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.SyntheticStore;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code export hf} on the synthetic store of the performance goal (100k tasks, ~1,000,000 runs): under 10 s on
 * 2 cores with bounded memory. Heavy (generation takes about a minute), so opt-in:
 * {@code -Disobench.scaleTasks=100000}.
 */
class HfExportScaleTest {

    @TempDir
    Path dir;

    @Test
    void exportOfAMillionRunStore() throws Exception {
        int tasks = Integer.getInteger("isobench.scaleTasks", 0);
        Assumptions.assumeTrue(tasks > 0, "opt-in: -Disobench.scaleTasks=100000 generates ~1,000,000 runs");
        try (Store store = Stores.open(dir.resolve("scale.duckdb").toString())) {
            SyntheticStore.Result g = SyntheticStore.generate(store, tasks, 4, 1);
            System.err.printf(Locale.ROOT, "generated %,d tasks, %,d runs in %,d ms%n", g.tasks(), g.runs(), g.elapsedMs());
            Runtime rt = Runtime.getRuntime();
            System.gc();
            long heapBefore = rt.totalMemory() - rt.freeMemory();
            HfExporter.Summary s = HfExporter.export(store, dir.resolve("out"));
            long heapAfter = rt.totalMemory() - rt.freeMemory();
            System.err.println(s.describe());
            System.err.printf(Locale.ROOT, "heap before %,d MB, after %,d MB, max %,d MB%n", heapBefore >> 20,
                    heapAfter >> 20, rt.maxMemory() >> 20);
            assertThat(s.runsRead()).isEqualTo(g.runs());
            assertThat(s.rows()).isGreaterThanOrEqualTo(tasks);
            assertThat(s.elapsed().toMillis()).as("export hf of %,d runs", g.runs()).isLessThan(10_000);
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*), count(DISTINCT commit_short) FROM read_parquet('"
                         + dir.resolve("out/data/train-00000-of-00001.parquet") + "')")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(s.rows());
                assertThat(rs.getLong(2)).isEqualTo(tasks);
            }
        }
    }
}
