package io.isobench.exec;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Launches the real CLI in its own JVM: target/isobench.jar when built (failsafe), else the test classpath. */
final class Cli {

    private Cli() {
    }

    static ProcessBuilder builder(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:+UseSerialGC");
        String jar = System.getProperty("isobench.jar");
        if (jar != null && Files.isRegularFile(Path.of(jar))) {
            cmd.add("-jar");
            cmd.add(jar);
        } else {
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add("io.isobench.cli.Main");
        }
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("ISOBENCH_PLAIN_PROGRESS", "1");
        return pb;
    }

    static boolean has(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Builds the toy engine repo into {@code dest}. */
    static void buildToyRepo(Path dest) throws IOException, InterruptedException {
        io.isobench.ToyRepo.build(dest);
    }
}
