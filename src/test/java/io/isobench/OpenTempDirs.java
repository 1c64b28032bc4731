package io.isobench;

import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Every test's {@code @TempDir} (junit-platform.properties): mode 755 instead of JUnit's 700, so that a session a test
 * runs as root can confine its arms (proc.Sandbox runs them as uid 65534, which must be able to reach the arm's
 * folders; docs/security.md, "Measured arms"). What the tests write there is theirs alone as before.
 */
public final class OpenTempDirs implements TempDirFactory {

    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext extension) throws IOException {
        Path dir = Files.createTempDirectory("junit-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }
}
