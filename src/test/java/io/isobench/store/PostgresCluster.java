package io.isobench.store;

import io.isobench.SharedData;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster for integration tests: {@code initdb -A trust} into a temp folder, {@code pg_ctl start}
 * on a free port of 127.0.0.1, {@code pg_ctl -m fast stop} and removal on {@link #close()}. As root the binaries run
 * as user {@code postgres} (initdb refuses root). Skips (locally) or fails (CI) when the binaries are absent.
 *
 * <pre>{@code
 * try (PostgresCluster pg = PostgresCluster.start()) {
 *     String url = pg.createDatabase();   // jdbc:postgresql://127.0.0.1:PORT/dbN?user=postgres
 * }
 * }</pre>
 */
public final class PostgresCluster implements AutoCloseable {

    private static final long STEP_TIMEOUT_SEC = 120;

    private final Path bin;
    private final Path dir;
    private final Path data;
    private final int port;
    private final List<String> asPostgres;
    private final AtomicInteger databases = new AtomicInteger();
    private boolean stopped;

    private PostgresCluster(Path bin, Path dir, int port, List<String> asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** The bin folder of the newest installed PostgreSQL that has initdb and pg_ctl, if any. */
    public static Optional<Path> findBinaries() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparingInt(PostgresCluster::majorVersion));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Starts a fresh cluster, or skips/fails the calling test when PostgreSQL is not installed. */
    public static PostgresCluster start() throws IOException, InterruptedException {
        Optional<Path> bin = findBinaries();
        SharedData.requireService(bin.isPresent(), "PostgreSQL 15 (initdb, pg_ctl)");
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> prefix = root ? List.of("runuser", "-u", "postgres", "--") : List.of();
        Path dir = Files.createTempDirectory("isobench-pg-");
        if (root) {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, postgres);
        }
        PostgresCluster pg = new PostgresCluster(bin.get(), dir, freePort(), prefix);
        try {
            pg.run("initdb", "-D", pg.data.toString(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync");
            pg.run("pg_ctl", "-D", pg.data.toString(), "-l", dir.resolve("server.log").toString(), "-w", "-t", "60",
                    "-o", "-c listen_addresses=127.0.0.1 -p " + pg.port + " -k " + dir + " -c fsync=off", "start");
        } catch (IOException | RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    /** A JDBC URL for database {@code name} as superuser postgres (trust authentication, no password). */
    public String url(String name) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?user=postgres";
    }

    /** Creates a new empty database and returns its JDBC URL. */
    public String createDatabase() throws SQLException {
        String name = "db" + databases.incrementAndGet();
        try (Connection c = DriverManager.getConnection(url("postgres")); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        }
        return url(name);
    }

    private void run(String tool, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(asPostgres);
        argv.add(bin.resolve(tool).toString());
        argv.addAll(List.of(args));
        Path log = dir.resolve(tool + ".out");
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(STEP_TIMEOUT_SEC, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(tool + " did not finish within " + STEP_TIMEOUT_SEC + " s: " + argv);
        }
        if (p.exitValue() != 0) {
            String out = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            Path server = dir.resolve("server.log");
            if (Files.exists(server)) {
                out += "\n--- server.log ---\n" + Files.readString(server, StandardCharsets.UTF_8);
            }
            throw new IOException(tool + " exited with " + p.exitValue() + ": " + argv + "\n" + out);
        }
    }

    /** Stops the server ({@code pg_ctl -m fast stop}) and deletes its folder. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            if (Files.exists(data.resolve("postmaster.pid"))) {
                run("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "stop");
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
