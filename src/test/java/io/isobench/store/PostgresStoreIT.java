package io.isobench.store;

import io.isobench.IsobenchException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The store contract against a real, throwaway PostgreSQL cluster (one cluster, one fresh database per test). */
class PostgresStoreIT extends StoreContract {

    private static PostgresCluster pg;

    @BeforeAll
    static void startCluster() throws Exception {
        pg = PostgresCluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (pg != null) {
            pg.close();
        }
    }

    @Override
    String freshSpec() throws Exception {
        return pg.createDatabase();
    }

    @Test
    void describeAndMessagesHideThePassword() throws Exception {
        String url = pg.createDatabase() + "&password=s3cret";
        try (Store s = Stores.open(url)) {
            assertThat(s.describe()).contains("127.0.0.1:" + pg.port()).contains("password=***").doesNotContain("s3cret");
        }
        assertThatThrownBy(() -> Stores.open(pg.url("no_such_db") + "&password=s3cret"))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("no_such_db")
                .hasMessageContaining("cannot connect to PostgreSQL")
                .hasMessageNotContaining("s3cret");
    }
}
