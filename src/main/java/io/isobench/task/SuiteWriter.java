package io.isobench.task;

import io.isobench.IsobenchException;
import io.isobench.guard.AtomicFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** Writes a suite as YAML in the documented format (docs/suite-format.md); every string is double-quoted. */
public final class SuiteWriter {

    private SuiteWriter() {
    }

    /** YAML for an imported suite, with a header naming the source and each task's lint errors as comments. */
    public static String toYaml(TaskImport.Result r) {
        StringBuilder b = new StringBuilder();
        b.append("# isobench task suite, imported from ").append(r.source().getFileName()).append('\n');
        b.append("# ").append(r.tasks().size()).append(" task(s); ").append(r.notRunnable())
                .append(" have perf_command errors (listed above each task) and will not run until fixed.\n");
        if (!r.agentsSeen().isEmpty()) {
            b.append("# agents in the data: ").append(String.join(", ", r.agentsSeen()))
                    .append(" (their patches are not in the table: add agents: entries with patch files)\n");
        }
        for (String n : r.notes()) {
            b.append("# ").append(n).append('\n');
        }
        b.append(toYaml(r.suite(), true));
        return b.toString();
    }

    public static String toYaml(Suite s) {
        return toYaml(s, false);
    }

    private static String toYaml(Suite s, boolean lintComments) {
        StringBuilder b = new StringBuilder();
        b.append("engine:\n");
        b.append("  repo: ").append(q(s.engine().repo())).append('\n');
        b.append("  name: ").append(q(s.engine().name())).append('\n');
        b.append("tasks:\n");
        for (TaskSpec t : s.tasks()) {
            if (lintComments) {
                for (Finding f : t.parsedCommand().findings()) {
                    if (f.isError()) {
                        b.append("  # lint error ").append(f.code()).append(": ")
                                .append(f.message().replace('\n', ' ')).append('\n');
                    }
                }
            }
            b.append("  - id: ").append(q(t.id())).append('\n');
            b.append("    human_commit: ").append(q(t.humanCommit())).append('\n');
            if (t.parentCommit() != null) {
                b.append("    parent_commit: ").append(q(t.parentCommit())).append('\n');
            }
            if (t.perfCommand() != null) {
                b.append("    perf_command: ").append(q(t.perfCommand())).append('\n');
            }
            if (t.model() != null) {
                b.append("    model: ").append(q(t.model())).append('\n');
            }
            if (t.modeLabel() != null) {
                b.append("    mode: ").append(q(t.modeLabel())).append('\n');
            }
            if (t.serverCommand() != null) {
                b.append("    server_command: ").append(q(t.serverCommand())).append('\n');
            }
            if (t.gpus() != null) {
                b.append("    gpus: ").append(t.gpus()).append('\n');
            }
            if (t.timeoutS() != null) {
                b.append("    timeout_s: ").append(t.timeoutS()).append('\n');
            }
            if (t.correctness() != null) {
                TaskSpec.Correctness c = t.correctness();
                b.append("    correctness: {prompts: ").append(c.prompts()).append(", max_tokens: ")
                        .append(c.maxTokens()).append(", tolerance: ")
                        .append(String.format(Locale.ROOT, "%s", c.tolerance())).append("}\n");
            }
        }
        if (s.agents().isEmpty()) {
            b.append("agents: []\n");
        } else {
            b.append("agents:\n");
            Path base = s.file() == null ? null : s.file().toAbsolutePath().getParent();
            for (AgentSpec a : s.agents()) {
                b.append("  - name: ").append(q(a.name())).append('\n');
                if (a.model() != null) {
                    b.append("    model: ").append(q(a.model())).append('\n');
                }
                b.append("    patches:").append(a.patches().isEmpty() ? " {}\n" : "\n");
                for (Map.Entry<String, Path> e : a.patches().entrySet()) {
                    Path p = e.getValue();
                    String shown = base != null && p.startsWith(base) ? base.relativize(p).toString() : p.toString();
                    b.append("      ").append(q(e.getKey())).append(": ").append(q(shown)).append('\n');
                }
            }
        }
        RunConfig r = s.run();
        b.append("run:\n");
        RoundsPlan rp = r.rounds();
        b.append("  rounds: ").append(rp.adaptive() ? "adaptive" : Integer.toString(rp.maxRounds())).append('\n');
        if (rp.adaptive() && !rp.equals(RoundsPlan.DEFAULT)) {
            b.append("  min_rounds: ").append(rp.minRounds()).append('\n');
            b.append("  max_rounds: ").append(rp.maxRounds()).append('\n');
            b.append("  spending: ").append(rp.spending()).append('\n');
            b.append("  futility_power: ").append(rp.futilityPower()).append('\n');
            b.append("  gating: [").append(String.join(", ", rp.gating())).append("]\n");
        }
        b.append("  warmup_requests: ").append(r.warmupRequests()).append('\n');
        b.append("  timeouts: {server_start_s: ").append(r.timeouts().serverStartS()).append(", run_s: ")
                .append(r.timeouts().runS()).append(", build_s: ").append(r.timeouts().buildS()).append("}\n");
        b.append("  executor: ").append(q(r.executor())).append('\n');
        b.append("  seed: ").append(r.seed()).append('\n');
        if (r.portBase() != null) {
            b.append("  port_base: ").append(r.portBase()).append('\n');
        }
        if (r.serverMetricsIntervalMs() != RunConfig.DEFAULT_SERVER_METRICS_INTERVAL_MS) {
            b.append("  server_metrics_interval_ms: ").append(r.serverMetricsIntervalMs()).append('\n');
        }
        RunConfig.ClockMismatch c = r.clockMismatch();
        if (!c.equals(RunConfig.ClockMismatch.DEFAULT)) {
            b.append("  exclude_on_clock_mismatch: ").append(c.exclude()).append('\n');
            b.append("  clock_mismatch_sm_pct: ").append(c.smClockPct()).append('\n');
            b.append("  clock_mismatch_throttle_share: ").append(c.throttleShare()).append('\n');
        }
        Confine cf = r.confine();
        if (!cf.equals(Confine.DEFAULT)) {
            b.append("  confine:\n    arms: ").append(cf.arms().key()).append('\n');
            b.append("    pass_env: [").append(String.join(", ", cf.passEnv().stream().map(SuiteWriter::q).toList()))
                    .append("]\n");
            b.append("    writable: [").append(String.join(", ", cf.writable().stream().map(SuiteWriter::q).toList()))
                    .append("]\n");
            b.append("    build_network: ").append(cf.buildNetwork()).append('\n');
        }
        return b.toString();
    }

    public static void write(Path out, String yaml) {
        try {
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            AtomicFile.write(out, w -> w.write(yaml));
        } catch (IOException e) {
            throw new IsobenchException.BadInput(out + ": cannot write the suite (" + e.getMessage() + ")", e);
        }
    }

    /** A YAML double-quoted scalar. */
    static String q(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
