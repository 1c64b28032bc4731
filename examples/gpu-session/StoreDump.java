import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * The GPU session's reader of its store (bench/gpu-session; docs/gpu-session.md, "Outputs"): the device machine has
 * no DuckDB client, so this class, compiled by {@code bench/gpu-session --prepare} against the carried jar, reads
 * the session's store read-only through the jar's DuckDB driver and writes
 * <ul>
 *   <li>{@code METRICS_CSV}: one line per stored metric of every run: session, kind, arm, round, status, name,
 *       value, unit (RFC 4180 quoting of text cells);</li>
 *   <li>{@code TELEMETRY_DIR/ARM-rROUND-ID.csv} (ID: the last 8 letters and digits of the run id): the raw nvidia-smi series of every run that has one
 *       (the run's {@code gpu_telemetry.series_sha256}, the artifact's bytes un-gzipped: byte for byte what
 *       nvidia-smi printed).</li>
 * </ul>
 * Usage: {@code java -cp isobench.jar:DIR StoreDump STORE METRICS_CSV TELEMETRY_DIR}. Not part of isobench.
 */
public final class StoreDump {

    private static final Pattern SERIES = Pattern.compile("\"series_sha256\"\\s*:\\s*\"([0-9a-f]{64})\"");

    private StoreDump() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: StoreDump STORE METRICS_CSV TELEMETRY_DIR");
            System.exit(2);
        }
        Properties ro = new Properties();
        ro.setProperty("duckdb.read_only", "true");
        Path telemetry = Files.createDirectories(Path.of(args[2]));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + args[0], ro);
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8))) {
            out.println("session,kind,arm,round,status,name,value,unit");
            try (ResultSet r = c.createStatement().executeQuery("SELECT r.session_id, r.kind, r.arm, r.round,"
                    + " r.status, m.name, m.value, m.unit FROM run r JOIN metric m ON m.run_id = r.run_id"
                    + " ORDER BY r.session_id, r.arm, r.round, r.started_at, m.seq")) {
                while (r.next()) {
                    out.println(String.join(",", cell(r.getString(1)), cell(r.getString(2)), cell(r.getString(3)),
                            Integer.toString(r.getInt(4)), cell(r.getString(5)), cell(r.getString(6)),
                            Double.toString(r.getDouble(7)), cell(r.getString(8))));
                }
            }
            int n = 0;
            try (ResultSet r = c.createStatement().executeQuery(
                    "SELECT run_id, arm, round, extra_json FROM run ORDER BY arm, round, started_at");
                 PreparedStatement art = c.prepareStatement("SELECT compressed FROM artifact WHERE sha256 = ?")) {
                while (r.next()) {
                    Matcher m = SERIES.matcher(r.getString(4) == null ? "" : r.getString(4));
                    if (!m.find()) {
                        continue;
                    }
                    art.setString(1, m.group(1));
                    try (ResultSet a = art.executeQuery()) {
                        if (a.next()) {
                            String name = r.getString(2).replaceAll("[^A-Za-z0-9._-]", "_") + "-r" + r.getInt(3)
                                    + "-" + tail(r.getString(1)) + ".csv";
                            write(a.getBytes(1), telemetry.resolve(name));
                            n++;
                        }
                    }
                }
            }
            System.err.println("StoreDump: metrics to " + args[1] + ", " + n + " GPU series to " + telemetry);
        }
    }

    private static void write(byte[] gzipped, Path file) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
            Files.write(file, in.readAllBytes());
        }
    }

    private static String tail(String runId) {
        String id = runId.replaceAll("[^A-Za-z0-9]", "");
        return id.substring(Math.max(0, id.length() - 8));
    }

    private static String cell(String s) {
        if (s == null) {
            return "";
        }
        return s.matches("[A-Za-z0-9._:@/+-]*") ? s : "\"" + s.replace("\"", "\"\"") + "\"";
    }
}
