package io.isobench.agent;

import io.isobench.IsobenchException;
import io.isobench.task.AgentRunner;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where an agent CLI is installed on the host, as the docker sandbox bakes it into the agent image
 * (docs/agents.md, "Sandbox"): the install folder and the executable relative to it. {@code sandbox.cli_dir} names
 * the folder; otherwise it is found from the CLI's executable ({@code runner.cli}, else the adapter's command on
 * PATH), links resolved: Claude Code's native {@code bin/claude.exe} in its npm package; Codex's static binary in
 * the platform package next to {@code @openai/codex} ({@code vendor/<target>/bin/codex}), never the Node.js wrapper.
 * A {@code command} agent bakes nothing: its argv[0] must be in the image.
 *
 * @param dir the folder to bake (null: nothing)
 * @param cli the executable, relative to {@code dir} (or, without one, its name or path in the image)
 */
record CliInstall(Path dir, String cli) {

    static CliInstall of(AgentConfig config, AgentRunner runner) {
        if (config.adapter().equals("command")) {
            String cliDir = runner.sandbox().get("cli_dir");
            if (cliDir != null && config.cli() != null) {
                return new CliInstall(Path.of(cliDir), relative(Path.of(cliDir), Path.of(config.cli())));
            }
            return new CliInstall(null, config.argv().isEmpty() ? config.cliOrDefault() : config.argv().get(0));
        }
        String cliDir = runner.sandbox().get("cli_dir");
        Path exe = executable(config.cliOrDefault());
        if (cliDir != null) {
            return new CliInstall(Path.of(cliDir), relative(Path.of(cliDir), exe));
        }
        try {
            Path real = exe.toRealPath();
            if (config.adapter().equals("codex") && real.getFileName().toString().endsWith(".js")) {
                Path pkg = real.getParent().getParent();
                String arch = System.getProperty("os.arch").contains("aarch64") ? "arm64" : "x64";
                String target = arch.equals("arm64") ? "aarch64-unknown-linux-musl" : "x86_64-unknown-linux-musl";
                Path vendor = pkg.getParent().resolve("codex-linux-" + arch).resolve("vendor").resolve(target);
                if (!Files.isExecutable(vendor.resolve("bin/codex"))) {
                    throw new IsobenchException.EnvironmentMissing("codex: no native binary at " + vendor
                            + "/bin/codex (fix: npm install @openai/codex on linux, or set runner.sandbox.cli_dir)");
                }
                return new CliInstall(vendor, "bin/codex");
            }
            return new CliInstall(real.getParent().getParent(), "bin/" + real.getFileName());
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing(exe + ": " + e.getMessage()
                    + " (fix: install the CLI, or set runner.cli / runner.sandbox.cli_dir)", e);
        }
    }

    private static String relative(Path dir, Path exe) {
        Path rel = exe.isAbsolute() ? dir.toAbsolutePath().relativize(exe.toAbsolutePath()) : exe;
        if (rel.startsWith("..")) {
            throw new IsobenchException.BadInput("runner.cli " + exe + " is not inside runner.sandbox.cli_dir " + dir
                    + " (fix: the executable's path inside that folder)");
        }
        return rel.toString();
    }

    /** {@code cli} as a path: as given when it has a slash, else found on PATH. */
    static Path executable(String cli) {
        if (cli.contains("/")) {
            return Path.of(cli);
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(d, cli);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IsobenchException.EnvironmentMissing("'" + cli + "' is not on PATH (fix: install it, e.g. npm"
                + " install in tools/agent-clis, and set runner.cli to its path)");
    }
}
