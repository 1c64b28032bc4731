package io.isobench.task;

import io.isobench.engine.Engines;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the suite's {@code engine:} (with {@code engine.artifact}), {@code run:} and {@code setup:} sections, and
 * a task's {@code versions:} and {@code artifacts:}, for {@link SuiteLoader}.
 */
final class EngineSection extends SuiteNodes {
    private static final List<String> ENGINE_KEYS = List.of("repo", "name", "build", "artifact");
    private static final List<String> ARTIFACT_KEYS = List.of("type", "package", "source", "sha256", "check", "expect",
            "verify");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final List<String> RUN_KEYS = List.of("rounds", "min_rounds", "max_rounds", "spending",
            "futility_power", "gating", "warmup_requests", "timeouts", "executor", "seed", "port_base", "aa",
            "server_metrics_interval_ms", "exclude_on_clock_mismatch", "clock_mismatch_sm_pct",
            "clock_mismatch_throttle_share", "confine");
    private static final List<String> CONFINE_KEYS = List.of("arms", "pass_env", "writable", "build_network");
    private static final List<String> TIMEOUT_KEYS = List.of("server_start_s", "run_s", "build_s");

    /** The engine adapter's name once the engine section is read (null when it is bad). */
    String engineName;
    /** The engine section as read (null when it is bad). */
    EngineSpec engineSpec;

    EngineSection(SuiteNodes shared) {
        super(shared);
    }

    EngineSpec engine(NodeTuple t, Node root) {
        if (t == null) {
            problem(root, "engine", "missing (fix: engine: {repo: PATH|URL, name: vllm})");
            return null;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), "engine", ENGINE_KEYS);
        if (m == null) {
            return null;
        }
        String repo = string(m.get("repo"), "engine.repo", true);
        String name = string(m.get("name"), "engine.name", false);
        if (name == null) {
            name = "vllm";
        } else if (!EngineSpec.NAMES.contains(name)) {
            // an adapter that lints and parses but has no runner (sglang: docs/engines.md) is no engine to run
            problem(m.get("name").getValueNode(), "engine.name", "'" + name + "' is not an engine "
                    + (Engines.named(name).isPresent() ? "isobench runs (its adapter lints and parses its commands)"
                    : "adapter" + Nearest.of(name, EngineSpec.NAMES).map(s -> " (did you mean " + s + "?)").orElse(""))
                    + " (fix: vllm, toy, or generic for any other engine)");
            return null;
        }
        engineName = name;
        ArtifactSpec artifact = artifact(m.get("artifact"));
        List<String> build = argv(m.get("build"), "engine.build", false);
        if (build == null) {
            build = List.of();
        }
        if (repo == null) {
            if (!m.containsKey("repo") && m.containsKey("artifact")) {
                return artifact == null ? null : new EngineSpec("artifact:" + artifact.source(), null, name, build,
                        artifact);
            }
            if (!m.containsKey("repo")) {
                problem(t.getValueNode(), "engine.repo", "missing (fix: a local clone path, a git bundle file or a"
                        + " git URL; or engine.artifact for prebuilt artifacts)");
            }
            return null;
        }
        if (m.containsKey("artifact")) {
            problem(m.get("artifact").getKeyNode(), "engine.artifact", "arms come from a repository or from prebuilt"
                    + " artifacts, not both (fix: remove engine.repo or engine.artifact)");
            return null;
        }
        if (EngineSpec.looksLikeUrl(repo)) {
            return new EngineSpec(repo, null, name, build);
        }
        Path p = resolve(repo);
        if (checkPaths && !Files.isDirectory(p) && !Files.isRegularFile(p)) {
            problem(m.get("repo").getValueNode(), "engine.repo", "no such directory or git bundle " + p
                    + " (fix: a local clone or a git bundle file, relative to the suite's folder, or a git URL)");
            return null;
        }
        return new EngineSpec(repo, p, name, build);
    }

    RunConfig run(NodeTuple t) {
        RunConfig d = RunConfig.DEFAULT;
        if (t == null || isNull(t.getValueNode())) {
            return d;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), "run", RUN_KEYS);
        if (m == null) {
            return d;
        }
        RoundsPlan rounds = rounds(m);
        Integer warm = integer(m.get("warmup_requests"), "run.warmup_requests", 0, 1_000_000);
        String executor = string(m.get("executor"), "run.executor", false);
        if (executor != null && !ExecutorNames.known().contains(executor)) {
            problem(m.get("executor").getValueNode(), "run.executor", "'" + executor + "' is not an executor"
                    + Nearest.of(executor, ExecutorNames.known()).map(s -> " (did you mean " + s + "?)").orElse("")
                    + " (fix: one of " + String.join(", ", ExecutorNames.known()) + ")");
            executor = null;
        }
        Long seed = null;
        NodeTuple st = m.get("seed");
        if (st != null) {
            String s = string(st, "run.seed", true);
            if (s != null) {
                try {
                    seed = Long.parseLong(s.trim());
                } catch (NumberFormatException e) {
                    problem(st.getValueNode(), "run.seed", "'" + s + "' is not an integer (fix: e.g. 42)");
                }
            }
        }
        Integer port = integer(m.get("port_base"), "run.port_base", 1024, 65000);
        Boolean aa = bool(m.get("aa"), "run.aa");
        Integer scrapeMs = integer(m.get("server_metrics_interval_ms"), "run.server_metrics_interval_ms", 0, 3_600_000);
        RunConfig.ClockMismatch clock = clockMismatch(m);
        Confine confine = confine(m.get("confine"));
        RunConfig.Timeouts timeouts = RunConfig.Timeouts.DEFAULT;
        NodeTuple tt = m.get("timeouts");
        if (tt != null && !isNull(tt.getValueNode())) {
            Map<String, NodeTuple> tm = mapping(tt.getValueNode(), "run.timeouts", TIMEOUT_KEYS);
            if (tm != null) {
                Integer a = integer(tm.get("server_start_s"), "run.timeouts.server_start_s", 1, Integer.MAX_VALUE);
                Integer b = integer(tm.get("run_s"), "run.timeouts.run_s", 1, Integer.MAX_VALUE);
                Integer c = integer(tm.get("build_s"), "run.timeouts.build_s", 1, Integer.MAX_VALUE);
                RunConfig.Timeouts td = RunConfig.Timeouts.DEFAULT;
                timeouts = new RunConfig.Timeouts(a == null ? td.serverStartS() : a, b == null ? td.runS() : b,
                        c == null ? td.buildS() : c);
            }
        }
        return new RunConfig(rounds, warm == null ? d.warmupRequests() : warm, timeouts,
                executor == null ? d.executor() : executor, seed == null ? d.seed() : seed, port)
                .withAa(aa == null ? d.aa() : aa).withServerMetricsIntervalMs(scrapeMs == null ? d.serverMetricsIntervalMs()
                : scrapeMs).withClockMismatch(clock).withConfine(confine);
    }

    /** {@code run.confine}: {@code arms} (all, agents, off), {@code pass_env}, {@code writable}, {@code build_network}. */
    private Confine confine(NodeTuple t) {
        if (t == null || isNull(t.getValueNode())) {
            return Confine.DEFAULT;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), "run.confine", CONFINE_KEYS);
        if (m == null) {
            return Confine.DEFAULT;
        }
        Confine.Arms arms = null;
        String a = string(m.get("arms"), "run.confine.arms", true);
        if (a != null) {
            try {
                arms = Confine.Arms.valueOf(a.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                problem(m.get("arms").getValueNode(), "run.confine.arms", "'" + a + "' is not a confinement rule"
                        + " (fix: all, agents or off)");
            }
        }
        List<String> pass = names(m.get("pass_env"), "run.confine.pass_env", null, true);
        if (pass != null) {
            for (String n : pass) {
                if (!n.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    problem(m.get("pass_env").getValueNode(), "run.confine.pass_env", "'" + n
                            + "' is not an environment variable name (fix: e.g. HF_TOKEN)");
                }
            }
        }
        List<String> writable = names(m.get("writable"), "run.confine.writable", null, true);
        if (writable != null) {
            for (String w : writable) {
                if (!w.startsWith("/") || w.equals("/") || w.contains("/../") || w.endsWith("/..")) {
                    problem(m.get("writable").getValueNode(), "run.confine.writable", "'" + w
                            + "' must be an absolute folder other than / (fix: e.g. /data/hf-cache)");
                }
            }
        }
        Boolean net = bool(m.get("build_network"), "run.confine.build_network");
        return new Confine(arms, pass, writable, net != null && net);
    }

    /**
     * {@code run.rounds} (a number: fixed; {@code adaptive}, the default) with {@code run.min_rounds},
     * {@code run.max_rounds}, {@code run.spending}, {@code run.futility_power}, {@code run.gating} (adaptive only).
     */
    private RoundsPlan rounds(Map<String, NodeTuple> m) {
        RoundsPlan d = RoundsPlan.DEFAULT;
        NodeTuple rt = m.get("rounds");
        String r = rt == null ? null : string(rt, "run.rounds", true);
        boolean adaptive = r == null || r.trim().equals("adaptive");
        List<String> adaptiveKeys = List.of("min_rounds", "max_rounds", "spending", "futility_power", "gating");
        if (!adaptive) {
            Integer n = integer(rt, "run.rounds", 1, 1000);
            for (String k : adaptiveKeys) {
                if (m.containsKey(k)) {
                    problem(m.get(k).getKeyNode(), "run." + k, "applies to adaptive rounds only, and run.rounds is "
                            + r.trim() + " (fix: run.rounds: adaptive, or drop run." + k + ")");
                }
            }
            return n == null ? d : RoundsPlan.fixed(n);
        }
        Integer min = integer(m.get("min_rounds"), "run.min_rounds", 2, RoundsPlan.LIMIT);
        Integer max = integer(m.get("max_rounds"), "run.max_rounds", 2, RoundsPlan.LIMIT);
        int lo = min == null ? d.minRounds() : min;
        int hi = max == null ? Math.max(d.maxRounds(), lo) : max;
        if (hi < lo) {
            problem(m.get(max != null ? "max_rounds" : "min_rounds").getValueNode(), "run.max_rounds", hi
                    + " is below run.min_rounds " + lo + " (fix: max_rounds >= min_rounds)");
            hi = lo;
        }
        String spending = string(m.get("spending"), "run.spending", true);
        if (spending != null && !RoundsPlan.SPENDINGS.contains(spending.trim())) {
            problem(m.get("spending").getValueNode(), "run.spending", "'" + spending + "' is not a spending function"
                    + Nearest.of(spending.trim(), RoundsPlan.SPENDINGS).map(x -> " (did you mean " + x + "?)")
                    .orElse("") + " (fix: obrien_fleming or pocock)");
            spending = null;
        }
        Double futility = decimal(m.get("futility_power"), "run.futility_power", 0, 0.99);
        List<String> gating = names(m.get("gating"), "run.gating", null, false);
        if (gating != null) {
            for (String g : gating) {
                if (!RoundsPlan.GATES.contains(g)) {
                    problem(m.get("gating").getValueNode(), "run.gating", "'" + g + "' is not a comparison that can"
                            + " stop a task (fix: human, agents, agents_vs_human)");
                    gating = null;
                    break;
                }
            }
        }
        return new RoundsPlan(true, lo, hi, spending == null ? d.spending() : spending.trim(),
                futility == null ? d.futilityPower() : futility, gating == null ? d.gating() : gating);
    }

    /** {@code run.exclude_on_clock_mismatch}, {@code run.clock_mismatch_sm_pct}, {@code ..._throttle_share}. */
    private RunConfig.ClockMismatch clockMismatch(Map<String, NodeTuple> m) {
        RunConfig.ClockMismatch d = RunConfig.ClockMismatch.DEFAULT;
        Boolean exclude = bool(m.get("exclude_on_clock_mismatch"), "run.exclude_on_clock_mismatch");
        Double pct = positive(m.get("clock_mismatch_sm_pct"), "run.clock_mismatch_sm_pct", 100, "3");
        Double share = positive(m.get("clock_mismatch_throttle_share"), "run.clock_mismatch_throttle_share", 1,
                "0.25");
        return new RunConfig.ClockMismatch(exclude == null ? d.exclude() : exclude,
                pct == null ? d.smClockPct() : pct, share == null ? d.throttleShare() : share);
    }

    /** A number in (0, max]; 0 would flag every run. Null when absent or bad (the problem is recorded). */
    private Double positive(NodeTuple t, String field, double max, String example) {
        String s = string(t, field, true);
        if (s == null) {
            return null;
        }
        String top = BigDecimal.valueOf(max).stripTrailingZeros().toPlainString();
        String fix = " (fix: a number > 0 and <= " + top + ", e.g. " + example + ")";
        double v;
        try {
            v = Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            problem(t.getValueNode(), field, "'" + s + "' is not a number" + fix);
            return null;
        }
        if (!(v > 0 && v <= max)) {
            problem(t.getValueNode(), field, s.trim() + (v == 0 ? " would flag every run" : " is out of range") + fix);
            return null;
        }
        return v;
    }

    /** {@code engine.artifact}: arms from prebuilt artifacts; null when absent or bad. */
    ArtifactSpec artifact(NodeTuple t) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        String f = "engine.artifact";
        Map<String, NodeTuple> m = mapping(t.getValueNode(), f, ARTIFACT_KEYS);
        if (m == null) {
            return null;
        }
        String type = string(m.get("type"), f + ".type", true);
        ArtifactSpec.Type kind = null;
        for (ArtifactSpec.Type k : ArtifactSpec.Type.values()) {
            if (k.label().equals(type == null ? null : type.strip())) {
                kind = k;
            }
        }
        List<String> types = Arrays.stream(ArtifactSpec.Type.values()).map(ArtifactSpec.Type::label).toList();
        if (type == null && !m.containsKey("type")) {
            problem(t.getValueNode(), f + ".type", "missing (fix: one of " + String.join(", ", types) + ")");
        } else if (type != null && kind == null) {
            problem(m.get("type").getValueNode(), f + ".type", "'" + type + "' is not an artifact type"
                    + Nearest.of(type, types).map(x -> " (did you mean " + x + "?)").orElse("")
                    + " (fix: one of " + String.join(", ", types) + ")");
        }
        String pkg = string(m.get("package"), f + ".package", true);
        if (pkg == null && !m.containsKey("package")) {
            problem(t.getValueNode(), f + ".package", "missing (fix: the npm or pip package, or the program's name)");
        }
        String source = string(m.get("source"), f + ".source", true);
        if (source == null && !m.containsKey("source")) {
            problem(t.getValueNode(), f + ".source", "missing (fix: a template such as npm:node-llama-cpp@{version},"
                    + " https://…/vllm-{commit}.whl or wheels/{commit}.whl)");
        } else if (source != null) {
            source = artifactTemplate(m.get("source").getValueNode(), f + ".source", source);
        }
        Map<String, String> sums = new LinkedHashMap<>();
        NodeTuple st = m.get("sha256");
        if (st != null && !isNull(st.getValueNode())) {
            if (!(st.getValueNode() instanceof MappingNode sm)) {
                problem(st.getValueNode(), f + ".sha256", "must be a map of version to checksum (fix: sha256:"
                        + " {3.22.1: 64 hex digits})");
            } else {
                for (NodeTuple e : sm.getValue()) {
                    String v = scalarText(e.getKeyNode());
                    String sum = string(e, f + ".sha256." + v, true);
                    if (sum != null && !SHA256.matcher(sum.strip()).matches()) {
                        problem(e.getValueNode(), f + ".sha256." + v, "'" + sum + "' is not a sha256 (fix: 64"
                                + " lower-case hex digits, e.g. from sha256sum FILE)");
                    } else if (sum != null) {
                        sums.put(v, sum.strip());
                    }
                }
            }
        }
        List<String> check = argv(m.get("check"), f + ".check", false, "[node, -e, \"console.log(require("
                + "'./node_modules/PKG/package.json').version)\"]");
        if (check != null) {
            for (String w : check) {
                if (artifactTemplate(m.get("check").getValueNode(), f + ".check", w) == null) {
                    check = null;
                    break;
                }
            }
        }
        String expect = string(m.get("expect"), f + ".expect", true);
        String verify = string(m.get("verify"), f + ".verify", true);
        ArtifactSpec.Verify ver = null;
        if (verify != null) {
            ver = switch (verify.strip()) {
                case "version" -> ArtifactSpec.Verify.VERSION;
                case "commit" -> ArtifactSpec.Verify.COMMIT;
                default -> null;
            };
            if (ver == null) {
                problem(m.get("verify").getValueNode(), f + ".verify", "'" + verify + "' is not what the installed"
                        + " version is compared with (fix: version, or commit for a version that carries the commit id)");
            }
        }
        if ((kind == ArtifactSpec.Type.TARBALL || kind == ArtifactSpec.Type.BINARY) && check == null
                && !m.containsKey("check")) {
            problem(t.getValueNode(), f + ".check", "missing: a " + kind.label() + " has no package metadata to"
                    + " verify (fix: a command that prints the installed version, e.g. [bin/server, --version])");
            return null;
        }
        if (kind == null || pkg == null || source == null || (m.containsKey("check") && check == null)
                || (verify != null && ver == null)) {
            return null;
        }
        return new ArtifactSpec(kind, pkg.strip(), source, sums, check, expect, ver);
    }

    /** An artifact template with known placeholders only ({@code {suite_dir}} filled in); null when bad. */
    String artifactTemplate(Node node, String field, String text) {
        Matcher mm = TEMPLATE_FIELD.matcher(text);
        while (mm.find()) {
            if (!ArtifactSpec.PLACEHOLDERS.contains(mm.group())) {
                problem(node, field, "unknown placeholder " + mm.group()
                        + Nearest.of(mm.group(), ArtifactSpec.PLACEHOLDERS).map(x -> " (did you mean " + x + "?)")
                        .orElse("") + " (fix: use " + String.join(", ", ArtifactSpec.PLACEHOLDERS) + ")");
                return null;
            }
        }
        return text.replace("{suite_dir}", baseDir.toString());
    }

    /** A task's {@code versions:} and {@code artifacts:} (maps arm → value, arms baseline and human). */
    TaskSpec.ArmArtifacts armArtifacts(Map<String, NodeTuple> m, String field) {
        if (!m.containsKey("versions") && !m.containsKey("artifacts")) {
            return null;
        }
        Map<String, Map<String, String>> both = new LinkedHashMap<>();
        for (String key : List.of("versions", "artifacts")) {
            Map<String, String> out = new LinkedHashMap<>();
            both.put(key, out);
            NodeTuple t = m.get(key);
            if (t == null || isNull(t.getValueNode())) {
                continue;
            }
            if (engineSpec == null || engineSpec.artifact() == null) {
                problem(t.getKeyNode(), field + "." + key, "is for arms from prebuilt artifacts (fix: engine.artifact,"
                        + " or remove it)");
                continue;
            }
            Map<String, NodeTuple> am = mapping(t.getValueNode(), field + "." + key, List.of("baseline", "human"));
            if (am == null) {
                continue;
            }
            for (Map.Entry<String, NodeTuple> e : am.entrySet()) {
                String v = string(e.getValue(), field + "." + key + "." + e.getKey(), true);
                if (v != null && key.equals("artifacts")) {
                    v = artifactTemplate(e.getValue().getValueNode(), field + ".artifacts." + e.getKey(), v.strip());
                }
                if (v != null) {
                    out.put(e.getKey(), v.strip());
                }
            }
        }
        return new TaskSpec.ArmArtifacts(both.get("versions"), both.get("artifacts"));
    }

    /** Top-level {@code setup:}: argv lists run once per session, before the environments. */
    List<List<String>> setup(NodeTuple t) {
        List<List<String>> out = new ArrayList<>();
        if (t == null || isNull(t.getValueNode())) {
            return out;
        }
        if (!(t.getValueNode() instanceof SequenceNode seq)) {
            problem(t.getValueNode(), "setup", "must be a list of argv lists (fix: - [python3, \"{suite_dir}/make.py\","
                    + " --out, \"{workdir}/model.bin\"])");
            return out;
        }
        int i = 0;
        for (Node n : seq.getValue()) {
            String field = "setup[" + i++ + "]";
            List<String> argv = argv(new NodeTuple(t.getKeyNode(), n), field, false,
                    "[python3, \"{suite_dir}/make_checkpoint.py\", --out, \"{workdir}/model.bin\"]");
            if (argv == null) {
                continue;
            }
            boolean ok = true;
            for (String w : argv) {
                Matcher mm = TEMPLATE_FIELD.matcher(w);
                while (mm.find()) {
                    if (!GenericTask.PLACEHOLDERS.contains(mm.group())) {
                        problem(n, field, "unknown placeholder " + mm.group() + " (fix: use "
                                + String.join(", ", GenericTask.PLACEHOLDERS) + ")");
                        ok = false;
                    }
                }
            }
            if (ok) {
                out.add(argv.stream().map(w -> w.replace("{suite_dir}", baseDir.toString())).toList());
            }
        }
        return out;
    }
}
