package io.isobench.store;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.CodeSource;
import java.util.Locale;

/**
 * Puts DuckDB's native library for this platform beside the isobench jar, once.
 *
 * <p>DuckDB's JDBC driver unpacks its 57 MB native library from the jar root to a temp file on every start (about
 * 0.5 s CPU and more wall time on a busy disk). The isobench jar keeps the libraries under
 * {@value #DIR} instead, so the driver falls back to loading {@code libduckdb_java.so_<os>_<arch>} from the folder
 * of the jar; this class writes that file there on first use. Running from classes (tests, IDE), the driver's own
 * jar is on the class path and nothing is done.
 */
public final class DuckNative {

    static final String DIR = "META-INF/isobench-native/";

    private DuckNative() {
    }

    /**
     * Makes sure the library DuckDB will look for beside the jar is there; call before anything touches DuckDB.
     *
     * @throws IsobenchException.EnvironmentMissing when the jar's folder is not writable and the library is missing
     */
    public static void prepare() {
        String name = libraryName();
        if (name == null) {
            return;
        }
        URL packed = DuckNative.class.getResource("/" + DIR + name);
        Path jarDir = jarDir();
        if (packed == null || jarDir == null || DuckNative.class.getResource("/" + name) != null) {
            return;   // not running from the isobench jar, or the driver's own copy is on the class path
        }
        Path target = jarDir.resolve(name);
        try {
            long size = packed.openConnection().getContentLengthLong();
            if (Files.isRegularFile(target) && Files.size(target) == size) {
                return;
            }
            Path tmp = Files.createTempFile(jarDir, name, ".part");
            try (InputStream in = packed.openStream()) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing("cannot place DuckDB's native library at " + target + " ("
                    + e.getMessage() + "); run isobench from a writable copy of its jar folder");
        }
    }

    /** The name DuckDB's driver loads for this OS and architecture, or null where it has none. */
    static String libraryName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        arch = switch (arch) {
            case "x86_64", "amd64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> null;
        };
        if (os.startsWith("mac") || os.startsWith("osx") || os.contains("darwin")) {
            return "libduckdb_java.so_osx_universal";
        }
        if (arch == null) {
            return null;
        }
        if (os.startsWith("windows")) {
            return "libduckdb_java.so_windows_" + arch;
        }
        return os.startsWith("linux") ? "libduckdb_java.so_linux_" + arch : null;
    }

    private static Path jarDir() {
        try {
            CodeSource cs = DuckNative.class.getProtectionDomain().getCodeSource();
            if (cs == null || cs.getLocation() == null) {
                return null;
            }
            Path p = Path.of(cs.getLocation().toURI());
            return Files.isRegularFile(p) ? p.getParent().toRealPath() : null;
        } catch (URISyntaxException | IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
