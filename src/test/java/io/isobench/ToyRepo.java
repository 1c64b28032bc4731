package io.isobench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The bundled toy engine's git repo (examples/toy-engine/build-repo.sh), built for a test. */
public final class ToyRepo {

    private ToyRepo() {
    }

    /** Builds the toy engine repo into {@code dest}; fails with the script's output when it does not succeed. */
    public static void build(Path dest) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", Path.of("examples/toy-engine/build-repo.sh").toAbsolutePath().toString(),
                dest.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("build-repo.sh failed: " + out);
        }
    }
}
