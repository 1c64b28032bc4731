package io.isobench.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** The {@code artifact} table: content address (sha256 of the redacted bytes), stored form (gzip), rows. */
final class ArtifactBytes {

    private static final int ARTIFACT_CHUNK = 200;

    /** Inserts the artifacts of {@code bySha} the table does not have yet. */
    static void insertMissing(Connection c, Map<String, Store.ArtifactInput> bySha) throws SQLException {
        List<String> all = List.copyOf(bySha.keySet());
        for (int from = 0; from < all.size(); from += ARTIFACT_CHUNK) {
            List<String> chunk = all.subList(from, Math.min(all.size(), from + ARTIFACT_CHUNK));
            Set<String> present = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT sha256 FROM artifact WHERE sha256 IN ("
                    + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")")) {
                int i = 1;
                for (String sha : chunk) {
                    ps.setString(i++, sha);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        present.add(rs.getString(1));
                    }
                }
            }
            List<String> missing = chunk.stream().filter(sha -> !present.contains(sha)).toList();
            if (missing.isEmpty()) {
                continue;
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO artifact (sha256, kind, size_bytes, "
                    + "compressed) VALUES " + String.join(", ", Collections.nCopies(missing.size(),
                    "(?, ?, ?, ?)")) + " ON CONFLICT (sha256) DO NOTHING")) {
                int i = 1;
                for (String sha : missing) {
                    Store.ArtifactInput a = bySha.get(sha);
                    ps.setString(i++, sha);
                    ps.setString(i++, a.kind());
                    ps.setLong(i++, a.bytes().length);
                    ps.setBytes(i++, gzip(a.bytes()));
                }
                ps.executeUpdate();
            }
        }
    }

    /** The bytes of artifact {@code sha256}; empty when absent; a size mismatch is a corrupt store. */
    static Optional<byte[]> read(Connection c, String sha256, String description) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT compressed, size_bytes FROM artifact WHERE sha256 = ?")) {
            ps.setString(1, sha256 == null ? null : sha256.toLowerCase(Locale.ROOT));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                byte[] bytes = gunzip(rs.getBytes(1));
                if (bytes.length != rs.getLong(2)) {
                    throw new IllegalStateException("store " + description + ": artifact " + sha256 + " has "
                            + bytes.length + " bytes, expected " + rs.getLong(2) + " (corrupt store)");
                }
                return Optional.of(bytes);
            }
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, bytes.length / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16)) {
            gz.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static byte[] gunzip(byte[] bytes) {
        try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(bytes), 1 << 16)) {
            return gz.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ArtifactBytes() {
    }
}
