package io.isobench;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

import io.isobench.proc.Sandbox;

/**
 * Locates {@code ../shared} (real ISO-Bench files, fixtures). Tests that need it skip with a clear message when the
 * folder is absent (it is never committed into the project); CI always has it.
 */
public final class SharedData {

    private SharedData() {
    }

    public static Path root() {
        String prop = System.getProperty("isobench.shared");
        Path p = prop != null ? Path.of(prop) : Path.of("..", "shared");
        return p.toAbsolutePath().normalize();
    }

    /** The path under ../shared, or skips the calling test when it is absent. */
    public static Path require(String relative) {
        Path p = root().resolve(relative);
        Assumptions.assumeTrue(Files.exists(p),
                () -> "skipped: " + p + " is absent (tests read real data from ../shared; it is not part of the project)");
        return p;
    }

    /** The ISO-Bench sample tree {@code ../shared/isobench-data}. */
    public static Path isobenchData() {
        return require("isobench-data");
    }

    /** True when CI demands that integration services exist (a missing service fails instead of skipping). */
    public static boolean servicesRequired() {
        return Boolean.parseBoolean(System.getProperty("isobench.requireServices", "false"))
                || "1".equals(System.getenv("ISOBENCH_REQUIRE_SERVICES"));
    }

    /** Skips (locally) or fails (CI) when a service needed by an integration test is missing. */
    public static void requireService(boolean present, String what) {
        if (!present) {
            String msg = "integration service missing: " + what + " (run scripts/provision to install it)";
            if (servicesRequired()) {
                throw new AssertionError(msg);
            }
            Assumptions.abort(msg);
        }
    }

    /**
     * Skips (locally) or fails (CI) a test that runs arms on the local executor, which confines every arm in bubblewrap
     * by default (docs/security.md, "Measured arms"), where no sandbox can be made here.
     */
    public static void requireSandbox() {
        requireService(Sandbox.problem().isEmpty(), "a working bwrap (bubblewrap), which confines"
                + " every measured arm: " + Sandbox.problem().orElse(""));
    }
}
