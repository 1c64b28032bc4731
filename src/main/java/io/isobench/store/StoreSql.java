package io.isobench.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.List;

/** JDBC plumbing shared by the store's row classes: nullable binds and reads, UTC timestamps, upsert SET lists. */
final class StoreSql {

    static final int FETCH_SIZE = 2000;

    /** Rows per multi-row statement for sources and tasks (PostgreSQL allows 65,535 parameters). */
    static final int ROW_CHUNK = 500;

    /** Binds one row's columns from parameter {@code i}; returns the next free parameter index. */
    @FunctionalInterface
    interface RowBinder<T> {
        int bind(PreparedStatement ps, int i, T row) throws SQLException;
    }

    /**
     * Inserts or replaces {@code rows} (distinct keys) in {@code table} ({@code columns} comma-separated, keyed by
     * {@code key}), with multi-row statements of {@link #ROW_CHUNK} rows (DuckDB spends milliseconds per statement).
     */
    static <T> void upsertRows(Connection c, String table, String columns, String key, List<T> rows,
                               RowBinder<T> binder) throws SQLException {
        int n = columns.split(",").length;
        String row = "(?" + ", ?".repeat(n - 1) + ")";
        for (int from = 0; from < rows.size(); from += ROW_CHUNK) {
            List<T> chunk = rows.subList(from, Math.min(rows.size(), from + ROW_CHUNK));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (" + columns + ") VALUES "
                    + String.join(", ", Collections.nCopies(chunk.size(), row))
                    + " ON CONFLICT (" + key + ") DO UPDATE SET " + updateSet(columns, key))) {
                int i = 1;
                for (T t : chunk) {
                    i = binder.bind(ps, i, t);
                }
                ps.executeUpdate();
            }
        }
    }

    /** {@code col = EXCLUDED.col} for every column but the key's (one column, or several comma-separated). */
    static String updateSet(String columns, String key) {
        List<String> keys = List.of(key.split(",\\s*"));
        StringBuilder sb = new StringBuilder();
        for (String col : columns.split(",\\s*")) {
            if (keys.contains(col)) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(col).append(" = EXCLUDED.").append(col);
        }
        return sb.toString();
    }

    static void setInstant(PreparedStatement ps, int i, Instant t) throws SQLException {
        setNullable(ps, i, t, Types.TIMESTAMP, (j, v) -> ps.setObject(j, LocalDateTime.ofInstant(v, ZoneOffset.UTC)));
    }

    static Instant getInstant(ResultSet rs, int i) throws SQLException {
        LocalDateTime t = rs.getObject(i, LocalDateTime.class);
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }

    static void setDouble(PreparedStatement ps, int i, Double v) throws SQLException {
        setNullable(ps, i, v, Types.DOUBLE, ps::setDouble);
    }

    static Double getDouble(ResultSet rs, int i) throws SQLException {
        return unlessNull(rs, rs.getDouble(i));
    }

    static void setInt(PreparedStatement ps, int i, Integer v) throws SQLException {
        setNullable(ps, i, v, Types.INTEGER, ps::setInt);
    }

    static Integer getInt(ResultSet rs, int i) throws SQLException {
        return unlessNull(rs, rs.getInt(i));
    }

    /** Binds one parameter of a statement; JDBC's setters throw {@link SQLException}. */
    @FunctionalInterface
    private interface Binder<T> {
        void bind(int index, T value) throws SQLException;
    }

    /** Binds {@code v} with {@code binder}, or SQL NULL of {@code sqlType} when it is null. */
    private static <T> void setNullable(PreparedStatement ps, int i, T v, int sqlType, Binder<T> binder)
            throws SQLException {
        if (v == null) {
            ps.setNull(i, sqlType);
        } else {
            binder.bind(i, v);
        }
    }

    /** The value just read, or null when the column read was SQL NULL (a primitive getter reads NULL as 0). */
    private static <T> T unlessNull(ResultSet rs, T v) throws SQLException {
        return rs.wasNull() ? null : v;
    }

    static void bind(PreparedStatement ps, List<Object> args, int offset) throws SQLException {
        for (int i = 0; i < args.size(); i++) {
            ps.setObject(offset + i + 1, args.get(i));
        }
    }

    static PreparedStatement prepare(Connection c, String sql, List<Object> args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
        ps.setFetchSize(FETCH_SIZE);
        for (int i = 0; i < args.size(); i++) {
            ps.setObject(i + 1, args.get(i));
        }
        return ps;
    }

    private StoreSql() {
    }
}
