package io.isobench.store;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens stores: a file path (or {@code jdbc:duckdb:PATH}) is an embedded DuckDB database (created with its folders
 * when absent), {@code :memory:} an in-memory DuckDB store, a {@code jdbc:postgresql://…} URL a PostgreSQL database. Both get the same schema through versioned migrations.
 */
public final class Stores {

    /** The database the CLI uses when {@code --db} is not given. */
    public static final String DEFAULT_SPEC = "isobench.duckdb";

    /** An in-memory DuckDB store, gone when closed (tests, dry runs). */
    public static final String MEMORY = ":memory:";

    /** Schema migrations, applied in order; the number is the schema version. */
    private static final List<String> MIGRATIONS = List.of("V1__init", "V2__track");

    private static final byte[] DUCKDB_MAGIC = "DUCK".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&;\\s]*");
    /** user:password@ of a URL; the password may hold '/' and '@' (unencoded): up to the token's last '@'. */
    private static final Pattern URL_USERINFO = Pattern.compile("(//[^/:@\\s]*:)\\S*@");

    /**
     * The PostgreSQL driver's own log (java.util.logging to the console) echoes a URL it cannot parse, password
     * included, past every redaction of ours; isobench reports connection failures itself (issue 27). A strong
     * reference: java.util.logging holds loggers weakly, and a collected one would lose its level.
     */
    private static final Logger PG_DRIVER_LOG = Logger.getLogger("org.postgresql");

    static {
        PG_DRIVER_LOG.setLevel(Level.OFF);
    }

    private Stores() {
    }

    /** The newest schema version this code knows. */
    public static int schemaVersion() {
        return MIGRATIONS.size();
    }

    /**
     * Opens (creating and migrating when needed) the store named by {@code spec}.
     *
     * @throws IsobenchException.BadInput when the path or URL cannot hold a store (one line naming it and the fix)
     */
    public static Store open(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IsobenchException.BadInput("--db is empty: give a DuckDB file path (default " + DEFAULT_SPEC
                    + ") or a jdbc:postgresql://HOST:PORT/DB URL");
        }
        if (spec.startsWith("jdbc:postgresql:")) {
            return openPostgres(spec);
        }
        if (spec.equals(MEMORY) || spec.equals("jdbc:duckdb:") || spec.equals("jdbc:duckdb::memory:")) {
            return openDuckDbInMemory();
        }
        if (spec.startsWith("jdbc:duckdb:")) {
            return openDuckDb(spec.substring("jdbc:duckdb:".length()));
        }
        if (spec.startsWith("jdbc:")) {
            throw new IsobenchException.BadInput("--db " + redact(spec) + " is not supported: give a DuckDB file path or a "
                    + "jdbc:postgresql://HOST:PORT/DB URL");
        }
        return openDuckDb(spec);
    }

    /**
     * The passwords a store spec carries ({@code user:PASSWORD@host}, {@code password=PASSWORD}), as written and
     * percent-decoded: what must never be printed, whatever text (a driver's message, a host name in a cause's
     * stack trace) carries it. Empty for a DuckDB path.
     */
    public static Set<String> credentials(String spec) {
        Set<String> out = new LinkedHashSet<>();
        if (spec == null) {
            return out;
        }
        int slashes = spec.indexOf("//");
        if (slashes >= 0) {
            String rest = spec.substring(slashes + 2);
            int query = rest.indexOf('?');
            int at = rest.lastIndexOf('@', query < 0 ? rest.length() : query);
            int colon = at < 0 ? -1 : rest.indexOf(':');
            if (colon >= 0 && colon < at) {
                out.add(rest.substring(colon + 1, at));
            }
        }
        Matcher m = Pattern.compile("(?i)[?&;]password=([^&;]*)").matcher(spec);
        while (m.find()) {
            out.add(m.group(1));
        }
        for (String pw : List.copyOf(out)) {
            try {
                out.add(URLDecoder.decode(pw, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                // not percent-encoded: as written only
            }
        }
        out.removeIf(String::isEmpty);
        return out;
    }

    /** {@code text} with every password of {@code spec} ({@link #credentials}) and of any URL in it masked. */
    public static String redactCredentials(String text, String spec) {
        if (text == null) {
            return null;
        }
        String s = text;
        for (String pw : credentials(spec)) {
            s = s.replace(pw, "***");
        }
        return redact(s);
    }

    /** A JDBC URL with passwords replaced by {@code ***}. */
    public static String redact(String url) {
        if (url == null) {
            return null;
        }
        String s = URL_PASSWORD.matcher(url).replaceAll("$1***");
        return URL_USERINFO.matcher(s).replaceAll("$1***@");
    }

    // ---------------------------------------------------------------- DuckDB

    private static Store openDuckDb(String spec) {
        Path path;
        try {
            path = Path.of(spec).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IsobenchException.BadInput("--db " + spec + " is not a valid file path: " + e.getReason());
        }
        if (Files.isDirectory(path)) {
            throw new IsobenchException.BadInput("--db " + path + " is a folder: give a database file, e.g. "
                    + path.resolve(DEFAULT_SPEC));
        }
        boolean existed = Files.exists(path);
        if (existed && emptyFile(path)) {
            // e.g. from mktemp: DuckDB refuses an empty file, so let it create the database in its place
            deleteQuietly(path);
            existed = false;
        }
        if (existed) {
            checkDuckDbFile(path);
        } else {
            Path parent = path.getParent();
            try {
                Files.createDirectories(parent);
            } catch (IOException | SecurityException e) {
                throw new IsobenchException.BadInput("--db " + path + ": cannot create folder " + parent + " ("
                        + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()) + "); choose a writable location");
            }
            if (!Files.isWritable(parent)) {
                throw new IsobenchException.BadInput("--db " + path + ": folder " + parent
                        + " is not writable; choose a writable location");
            }
        }
        Connection conn = null;
        try {
            Properties props = new Properties();
            props.setProperty("jdbc_stream_results", "true");
            conn = DriverManager.getConnection("jdbc:duckdb:" + path, props);
            Connection main = conn;
            Migrations.apply(conn, JdbcStore.Dialect.DUCKDB, path.toString());
            return new JdbcStore(conn, JdbcStore.Dialect.DUCKDB, path.toString(),
                    () -> ((org.duckdb.DuckDBConnection) main).duplicate());
        } catch (SQLException | RuntimeException e) {
            closeQuietly(conn);
            if (!existed) {
                deleteQuietly(path);
                deleteQuietly(Path.of(path + ".wal"));
            }
            if (e instanceof IsobenchException ie) {
                throw ie;
            }
            throw new IsobenchException.BadInput(duckDbMessage(path, e), e);
        }
    }

    private static boolean emptyFile(Path path) {
        try {
            return Files.isRegularFile(path) && Files.size(path) == 0 && Files.isWritable(path.getParent());
        } catch (IOException e) {
            return false;
        }
    }

    private static Store openDuckDbInMemory() {
        try {
            Connection conn = DriverManager.getConnection("jdbc:duckdb:");
            Migrations.apply(conn, JdbcStore.Dialect.DUCKDB, MEMORY);
            return new JdbcStore(conn, JdbcStore.Dialect.DUCKDB, MEMORY,
                    () -> ((org.duckdb.DuckDBConnection) conn).duplicate());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open an in-memory DuckDB store: " + firstLine(e.getMessage()), e);
        }
    }

    private static void checkDuckDbFile(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new IsobenchException.BadInput("--db " + path + " is not a regular file; give a DuckDB database file");
        }
        if (!Files.isReadable(path) || !Files.isWritable(path)) {
            throw new IsobenchException.BadInput("--db " + path + " is not readable and writable; fix its permissions "
                    + "or choose another file");
        }
        byte[] head = new byte[12];
        int n;
        try (InputStream in = Files.newInputStream(path)) {
            n = in.readNBytes(head, 0, head.length);
        } catch (IOException e) {
            throw new IsobenchException.BadInput("--db " + path + " cannot be read (" + firstLine(e.getMessage())
                    + "); fix its permissions or choose another file");
        }
        if (n < head.length || !Arrays.equals(Arrays.copyOfRange(head, 8, 12), DUCKDB_MAGIC)) {
            throw new IsobenchException.BadInput("--db " + path + " is not a DuckDB database; give a new file name or an "
                    + "existing isobench store");
        }
    }

    private static String duckDbMessage(Path path, Exception e) {
        String msg = firstLine(e.getMessage());
        if (msg.contains("Could not set lock") || msg.contains("Conflicting lock")) {
            return "--db " + path + " is in use by another process; wait for it to finish or use another --db";
        }
        if (msg.contains("newer") && msg.contains("version")) {
            return "--db " + path + " was written by a newer DuckDB (" + msg + "); upgrade isobench";
        }
        return "--db " + path + " cannot be opened as a DuckDB store (" + msg + "); choose a writable location or "
                + "another file";
    }

    // ---------------------------------------------------------------- PostgreSQL

    private static Store openPostgres(String url) {
        String shown = redact(url);
        Connection conn = null;
        try {
            conn = DriverManager.getConnection(url, props(url));
        } catch (SQLException e) {
            if (timedOut(e)) {
                throw new IsobenchException.EnvironmentMissing("--db " + shown + ": the server accepted the connection"
                        + " but did not answer within " + LOGIN_TIMEOUT_S + " s (login timeout); check that PostgreSQL,"
                        + " not another service, listens there and is not overloaded", e);
            }
            throw new IsobenchException.BadInput("--db " + shown + ": cannot connect to PostgreSQL ("
                    + firstLine(redact(e.getMessage())) + "); check that the server runs and the host, port, database, "
                    + "user and password in the URL", e);
        }
        try {
            Migrations.apply(conn, JdbcStore.Dialect.POSTGRES, shown);
            return new JdbcStore(conn, JdbcStore.Dialect.POSTGRES, shown, () -> DriverManager.getConnection(url, props(url)));
        } catch (SQLException | RuntimeException e) {
            closeQuietly(conn);
            if (e instanceof IsobenchException ie) {
                throw ie;
            }
            throw new IsobenchException.BadInput("--db " + shown + ": cannot prepare the store schema ("
                    + firstLine(redact(e.getMessage())) + "); the user needs CREATE rights on the database", e);
        }
    }

    /** Seconds to log in (TCP connect, TLS, authentication, start-up): a port that accepts and never answers. */
    static final int LOGIN_TIMEOUT_S = 10;
    /** Seconds a read may wait for the server (a query, a result's next rows) before the store gives up. */
    static final int SOCKET_TIMEOUT_S = 300;

    /**
     * Connection settings: every wait bounded (connect, login, each read), unless the URL sets its own, so a server
     * that accepts and never answers ends the command with one line instead of hanging it.
     */
    private static Properties props(String url) {
        Properties props = new Properties();
        if (!url.contains("connectTimeout=")) {
            props.setProperty("connectTimeout", "10");
        }
        if (!url.contains("loginTimeout=")) {
            props.setProperty("loginTimeout", Integer.toString(LOGIN_TIMEOUT_S));
        }
        if (!url.contains("socketTimeout=")) {
            props.setProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_S));
        }
        props.setProperty("ApplicationName", "isobench");
        return props;
    }

    // ---------------------------------------------------------------- helpers

    /** A connection attempt that ended on a timeout (login or socket), not a refusal. */
    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
            if (t instanceof SocketTimeoutException || m.contains("timed out") || m.contains("timeout")) {
                return true;
            }
        }
        return false;
    }

    static String firstLine(String s) {
        if (s == null) {
            return "no detail";
        }
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // already failing; the caller reports the first error
            }
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // best effort: the caller reports the first error
        }
    }

    /** Versioned schema migrations ({@code schema_version}), each applied in its own transaction. */
    static final class Migrations {

        private Migrations() {
        }

        static void apply(Connection c, JdbcStore.Dialect dialect, String where) throws SQLException {
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                        + "description VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)");
            }
            int current = current(c);
            if (current > MIGRATIONS.size()) {
                throw new IsobenchException.BadInput("--db " + where + " has schema version " + current
                        + ", newer than this isobench supports (" + MIGRATIONS.size() + "); upgrade isobench");
            }
            for (int v = current + 1; v <= MIGRATIONS.size(); v++) {
                String name = MIGRATIONS.get(v - 1);
                List<String> statements = statements(name, dialect);
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    if (dialect == JdbcStore.Dialect.POSTGRES) {
                        // two clients opening a fresh database at once: the second waits, then skips
                        st.execute("SELECT pg_advisory_xact_lock(7305981)");
                        if (current(c) >= v) {
                            c.commit();
                            continue;
                        }
                    }
                    for (String sql : statements) {
                        st.execute(sql);
                    }
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)")) {
                        ps.setInt(1, v);
                        ps.setString(2, name);
                        StoreSql.setInstant(ps, 3, Instant.now());
                        ps.executeUpdate();
                    }
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    try {
                        c.rollback();
                    } catch (SQLException r) {
                        e.addSuppressed(r);
                    }
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }

        private static int current(Connection c) throws SQLException {
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT max(version) FROM schema_version")) {
                rs.next();
                return rs.getInt(1);
            }
        }

        static List<String> statements(String name, JdbcStore.Dialect dialect) {
            String resource = name + ".sql";
            String text;
            try (InputStream in = Stores.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("migration " + resource + " is missing from the build");
                }
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read migration " + resource, e);
            }
            text = text.replace("${BLOB}", dialect == JdbcStore.Dialect.POSTGRES ? "BYTEA" : "BLOB");
            List<String> out = new ArrayList<>();
            StringBuilder cur = new StringBuilder();
            for (String line : text.split("\n")) {
                String t = line.strip();
                if (t.startsWith("--") || t.isEmpty()) {
                    continue;
                }
                cur.append(line).append('\n');
                if (t.endsWith(";")) {
                    String sql = cur.toString().strip();
                    out.add(sql.substring(0, sql.length() - 1));
                    cur.setLength(0);
                }
            }
            if (!cur.toString().isBlank()) {
                out.add(cur.toString().strip());
            }
            return out;
        }
    }
}
