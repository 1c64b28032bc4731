package io.isobench.loadgen;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The one reader of {@code vllm bench serve} / {@code benchmark_serving.py} flags into a {@link LoadgenConfig}: for
 * {@code isobench loadgen} (every flag) and for the serving client of a task ({@link #WORKLOAD} only). Flags are
 * named without leading dashes; a flag not given keeps the builder's default (vLLM's). A bad value is an
 * {@link IllegalArgumentException} with a one-line message naming the flag, the value and the fix.
 */
public final class ServeFlags {

    /** The workload flags a task's serving client reads: the same work for every arm (DESIGN §4). */
    public static final List<String> WORKLOAD = List.of("num-prompts", "max-concurrency", "request-rate",
            "burstiness", "dataset-name", "dataset-path", "sharegpt-output-len", "random-input-len",
            "random-output-len", "random-range-ratio", "random-prefix-len", "sonnet-input-len", "sonnet-output-len",
            "sonnet-prefix-len", "prefix-repetition-prefix-len", "prefix-repetition-suffix-len",
            "prefix-repetition-num-prefixes", "prefix-repetition-output-len", "ignore-eos", "seed", "tokenizer",
            "multi-turn", "max-turns", "max-context-len", "goodput", "timed-trace-chunk-hash-size",
            "timed-trace-sec-multiplier", "timed-trace-label-timestamp", "timed-trace-label-input-length",
            "timed-trace-label-output-length", "timed-trace-label-hash-ids", "trace-speedup", "trace-start",
            "trace-duration", "self-timed",
            "schedule-late-ms", "client-busy-limit-pct", "client-loop-lag-limit-ms", "schedule-lag-limit-ms");

    /** vLLM's dataset name for a timed trace ({@code timed_trace}) and the spelling of it. */
    private static final List<String> TIMED_TRACE = List.of("timed-trace", "timed_trace");

    private final Map<String, List<String>> flags;

    private ServeFlags(Map<String, List<String>> flags) {
        this.flags = flags;
    }

    /**
     * Every flag {@code isobench loadgen} takes that shapes the config; names it does not know are left to the
     * caller. Multi-valued flags ({@code header}, {@code goodput}) carry one entry per value.
     */
    public static LoadgenConfig.Builder parse(Map<String, List<String>> flags, Consumer<String> warn) {
        return new ServeFlags(flags).apply(LoadgenConfig.builder(), warn);
    }

    /**
     * A task's client flags ({@code {num-prompts=8, ignore-eos=true}}) applied over {@code b}: only the
     * {@link #WORKLOAD} flags count. A dataset the load generator cannot make from them (vLLM's hf, burstgpt…, a file
     * dataset without its file, a sonnet file that is not there) falls back to random prompts, with a warning: every
     * arm still gets the same work.
     */
    public static LoadgenConfig.Builder workload(LoadgenConfig.Builder b, Map<String, String> taskFlags,
                                                 Consumer<String> warn) {
        return workload(b, taskFlags, null, null, warn);
    }

    /**
     * As {@link #workload(LoadgenConfig.Builder, Map, Consumer)}, with a relative {@code dataset-path} read from
     * {@code baseDir} (the arm's worktree, where vLLM's {@code benchmarks/sonnet.txt} lives) through a private copy
     * in {@code scratch} ({@link TreeFile}: the tree's own file, never a link out of it), and a relative
     * {@code tokenizer} path too where the worktree holds it; null = the current folder.
     */
    public static LoadgenConfig.Builder workload(LoadgenConfig.Builder b, Map<String, String> taskFlags, Path baseDir,
                                                 Path scratch, Consumer<String> warn) {
        if (baseDir != null && scratch == null) {
            throw new IllegalArgumentException("a worktree's workload files are read through private copies: scratch"
                    + " folder missing");
        }
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (String name : WORKLOAD) {
            if (taskFlags.containsKey(name)) {
                // goodput's SLO targets (vLLM's nargs="+") arrive space-joined: one entry per target
                m.put(name, name.equals("goodput") ? List.of(taskFlags.get(name).strip().split("\\s+"))
                        : List.of(taskFlags.get(name)));
            }
        }
        Path cached = m.containsKey("tokenizer") ? null : modelTokenizer(taskFlags.get("model"));
        if (cached != null) {
            m.put("tokenizer", List.of(cached.toString()));
        }
        if (m.containsKey("tokenizer") && baseDir != null) {
            // a relative tokenizer path is the arm's, as vLLM opens it from the repo it runs in; a hub id stays one
            String written = m.get("tokenizer").get(0).strip();
            Path inTree = written.startsWith("~") || Path.of(written).isAbsolute() ? null : baseDir.resolve(written);
            if (inTree != null && Files.exists(inTree, LinkOption.NOFOLLOW_LINKS)) {
                // read through a private copy, as the dataset file below
                String file = Files.isDirectory(inTree, LinkOption.NOFOLLOW_LINKS) ? written + "/tokenizer.json" : written;
                Path copy = TreeFile.copyIn("--tokenizer", baseDir, file, scratch.resolve("tokenizer"));
                m.put("tokenizer", List.of((copy != null ? copy : inTree).toString()));
            }
        }
        if (m.containsKey("dataset-path") && baseDir != null) {
            String written = m.get("dataset-path").get(0).strip();
            String inRepo = engineRepoPath(written).orElse(written);
            if (!inRepo.equals(written) && Files.isRegularFile(baseDir.resolve(inRepo))) {
                warn.accept("--dataset-path " + written + " is the engine repo's " + inRepo
                        + " on the machine that wrote the command; read from the arm's worktree instead");
                written = inRepo;
            }
            Path copy = TreeFile.copyIn("--dataset-path", baseDir, written, scratch);
            m.put("dataset-path", List.of((copy != null ? copy : baseDir.resolve(written)).toString()));
        }
        String ds = m.containsKey("dataset-name") ? m.get("dataset-name").get(0).strip().toLowerCase(Locale.ROOT) : null;
        boolean fileNeeded = ds != null && (ds.equals("sonnet") || TIMED_TRACE.contains(ds));
        boolean makeable = ds == null || ds.equals("random") || ds.equals("prefix_repetition")
                || (List.of("sharegpt", "custom", "jsonl").contains(ds) && m.containsKey("dataset-path"))
                || (fileNeeded && m.containsKey("dataset-path")
                    && Files.isRegularFile(Path.of(m.get("dataset-path").get(0).strip())));
        if (!makeable) {
            warn.accept("--dataset-name " + ds + (fileNeeded && m.containsKey("dataset-path")
                    ? " file " + m.get("dataset-path").get(0).strip() + " does not exist" : " is not one the load"
                    + " generator makes here") + "; random prompts instead");
            m.remove("dataset-name");
        }
        if (ds != null && TIMED_TRACE.contains(ds) && m.containsKey("dataset-name")) {
            for (String f : List.of("timed-trace-sec-multiplier", "timed-trace-chunk-hash-size")) {
                if (!m.containsKey(f)) {
                    warn.accept("--" + f + " not given: isobench's default is " + (f.endsWith("multiplier")
                            ? "0.001 (millisecond timestamps), vLLM's 1 (seconds)" : "512 tokens (Mooncake's), vLLM's 16")
                            + "; write it in the command to be read alike by both");
                }
            }
        }
        return new ServeFlags(m).apply(b, warn);
    }

    /**
     * The engine repo's own file behind an absolute dataset path written on one machine
     * ({@code /home/u/vllm/benchmarks/sonnet.txt} → {@code benchmarks/sonnet.txt}): the part from the last
     * {@code /benchmarks/} folder on, for a path that starts with {@code /} or {@code ~}; empty for any other path.
     * A task's serving client reads that part from each arm's worktree (docs/loadgen.md, "Sonnet").
     */
    public static Optional<String> engineRepoPath(String path) {
        String p = path.strip();
        int at = p.lastIndexOf("/benchmarks/");
        if (!(p.startsWith("/") || p.startsWith("~")) || at < 0 || at + "/benchmarks/".length() == p.length()) {
            return Optional.empty();
        }
        return Optional.of(p.substring(at + 1));
    }

    /**
     * vLLM's default tokenizer is the model's: {@code --model ORG/NAME}'s {@code tokenizer.json} when the local
     * HuggingFace cache has it ({@link HfCache}), else null (prompt lengths are then checked as before).
     */
    private static Path modelTokenizer(String model) {
        if (model == null || !HfCache.isRepoId(model.strip())) {
            return null;
        }
        return HfCache.find(model.strip(), HfCache.hubDir()).tokenizerJson();
    }

    private LoadgenConfig.Builder apply(LoadgenConfig.Builder b, Consumer<String> warn) {
        server(b, warn);
        dataset(b);
        ifPresent("seed", v -> b.seed(longValue("seed", v)));
        ifPresent("num-prompts", v -> b.numPrompts(intValue("num-prompts", v)));
        ifPresent("num-warmups", v -> b.numWarmups(intValue("num-warmups", v)));
        ifPresent("duration", v -> {
            double sec = doubleValue("duration", v);
            if (!(sec > 0)) {
                throw new IllegalArgumentException("--duration (" + sec + ") must be > 0 seconds");
            }
            b.duration(Duration.ofMillis((long) (sec * 1000)));
        });
        ifPresent("request-rate", v -> b.requestRate(v.equalsIgnoreCase("inf") ? Double.POSITIVE_INFINITY
                : number("request-rate", v, "a number or inf", "e.g. --request-rate 10 or --request-rate inf")));
        ifPresent("burstiness", v -> b.burstiness(v.equalsIgnoreCase("inf") ? Double.POSITIVE_INFINITY
                : number("burstiness", v, "a number > 0 or inf", "e.g. --burstiness 1.0 or --burstiness inf")));
        ifPresent("max-concurrency", v -> b.maxConcurrency(intValue("max-concurrency", v)));
        rampUp(b);
        if (b.datasetKind() == DatasetSpec.Kind.TIMED_TRACE) {
            timedTraceLoad(b, warn);
        }
        ifPresent("ignore-eos", v -> b.ignoreEos(!v.equals("false")));
        ifPresent("no-stream", v -> b.stream(v.equals("false")));
        ifPresent("no-usage", v -> b.includeUsage(v.equals("false")));
        ifPresent("request-id-prefix", b::requestIdPrefix);
        requestBody(b);
        metrics(b);
        ifPresent("label", b::label);
        limits(b);
        return b;
    }

    /** The self-check's thresholds (docs/loadgen.md, "Client self-check"): each flag given over its default. */
    private void limits(LoadgenConfig.Builder b) {
        LoadFidelity.Limits d = LoadFidelity.Limits.DEFAULT;
        b.fidelityLimits(new LoadFidelity.Limits(limit("schedule-late-ms", d.lateMs()),
                limit("client-busy-limit-pct", d.ioBusyPct()), limit("client-loop-lag-limit-ms", d.loopLagMs()),
                limit("schedule-lag-limit-ms", d.scheduleLagMs())));
    }

    private double limit(String name, double otherwise) {
        String v = value(name);
        return v == null ? otherwise : doubleValue(name, v);
    }

    private void server(LoadgenConfig.Builder b, Consumer<String> warn) {
        String baseUrl = value("base-url");
        if (baseUrl != null) {
            try {
                b.baseUrl(URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--base-url '" + baseUrl + "' is not a URL");
            }
        } else if (value("host") != null || value("port") != null) {
            String host = value("host") == null ? "127.0.0.1" : value("host");
            b.baseUrl(URI.create("http://" + host + ":" + (value("port") == null ? 8000 : intValue("port", value("port")))));
        }
        ifPresent("endpoint", b::endpoint);
        ifPresent("model", b::model);
        ifPresent("served-model-name", b::model);
        for (String h : values("header")) {
            int eq = h.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--header '" + h + "' must be KEY=VALUE");
            }
            b.header(h.substring(0, eq), h.substring(eq + 1));
        }
        ifPresent("api-key-env", b::apiKeyEnv);
        ifPresent("ready-check-timeout-sec", v -> b.readyCheckTimeout(Duration.ofSeconds(intValue("ready-check-timeout-sec", v))));
        ifPresent("request-timeout", v -> b.requestTimeout(Duration.ofMillis((long) (doubleValue("request-timeout", v) * 1000))));
        Path cached = value("tokenizer") == null ? modelTokenizer(value("model")) : null;
        if (cached != null) {
            b.tokenizer(cached);
        }
        ifPresent("tokenizer", v -> {
            Path t = Path.of(v);
            if (Files.isDirectory(t)) {
                t = t.resolve("tokenizer.json");
            }
            HfCache.Lookup hub = Files.exists(t) || !HfCache.isRepoId(v) ? null : HfCache.find(v, HfCache.hubDir());
            if (Files.isRegularFile(t)) {
                b.tokenizer(t);
            } else if (hub != null && hub.tokenizerJson() != null) {
                b.tokenizer(hub.tokenizerJson()); // ORG/NAME from the local HuggingFace cache
            } else if (hub != null) {
                warn.accept("--tokenizer " + v + " is not a local tokenizer.json (or a directory with one) nor in the"
                        + " local HuggingFace cache (" + hub.triedText() + "); prompt lengths are checked against the"
                        + " server's counts instead");
            } else {
                // a hub id as vLLM takes it: nothing to download here, so the run goes on without it
                warn.accept("--tokenizer " + v + " is not a local tokenizer.json (or a directory with one); prompt"
                        + " lengths are checked against the server's counts instead");
            }
        });
    }

    private void dataset(LoadgenConfig.Builder b) {
        String name = value("dataset-name") == null ? "random" : value("dataset-name");
        String ds = name.toLowerCase(Locale.ROOT);
        String prompt = value("prompt");
        if (prompt != null && !ds.equals("fixed")) {
            throw new IllegalArgumentException("--prompt needs --dataset-name fixed");
        }
        Path path = value("dataset-path") == null ? null : Path.of(value("dataset-path"));
        int customOutputLen = intOr("custom-output-len", 256);
        boolean multiTurn = value("multi-turn") != null && !value("multi-turn").equals("false");
        if (multiTurn && !ds.equals("sharegpt")) {
            throw new IllegalArgumentException("--multi-turn needs --dataset-name sharegpt (a ShareGPT file of"
                    + " conversations)");
        }
        if (!multiTurn && ((value("max-turns") != null && !value("max-turns").equals("0"))
                || (value("max-context-len") != null && !value("max-context-len").equals("2048")))) {
            throw new IllegalArgumentException("--max-turns and --max-context-len need --multi-turn");
        }
        b.dataset(switch (ds) {
            case "random" -> DatasetSpec.random(intOr("random-input-len", 1024), intOr("random-output-len", 128),
                    doubleOr("random-range-ratio", 0.0), intOr("random-prefix-len", 0));
            case "sharegpt" -> multiTurn ? DatasetSpec.sharegptMultiTurn(path, intOr("sharegpt-output-len", 0),
                    new DatasetSpec.MultiTurn(intOr("max-turns", DatasetSpec.MultiTurn.DEFAULT.maxTurns()),
                            intOr("max-context-len", DatasetSpec.MultiTurn.DEFAULT.maxContextTokens())))
                    : DatasetSpec.sharegpt(path, intOr("sharegpt-output-len", 0));
            case "custom", "jsonl" -> DatasetSpec.custom(path, customOutputLen);
            case "fixed" -> DatasetSpec.fixed(prompt, customOutputLen);
            case "sonnet" -> DatasetSpec.sonnet(path, intOr("sonnet-input-len", 550), intOr("sonnet-output-len", 150),
                    intOr("sonnet-prefix-len", 200));
            case "prefix_repetition" -> DatasetSpec.prefixRepetition(intOr("prefix-repetition-prefix-len", 256),
                    intOr("prefix-repetition-suffix-len", 256), intOr("prefix-repetition-num-prefixes", 10),
                    intOr("prefix-repetition-output-len", 128));
            case "timed-trace", "timed_trace" -> DatasetSpec.timedTrace(path, new DatasetSpec.Trace(
                    intOr("timed-trace-chunk-hash-size", DatasetSpec.Trace.DEFAULT.blockTokens()),
                    doubleOr("timed-trace-sec-multiplier", DatasetSpec.Trace.DEFAULT.secMultiplier()),
                    doubleOr("trace-speedup", 1.0), doubleOr("trace-start", 0.0),
                    doubleOr("trace-duration", Double.POSITIVE_INFINITY), new DatasetSpec.Labels(
                    stringOr("timed-trace-label-timestamp", DatasetSpec.Labels.DEFAULT.timestamp()),
                    stringOr("timed-trace-label-input-length", DatasetSpec.Labels.DEFAULT.inputLength()),
                    stringOr("timed-trace-label-output-length", DatasetSpec.Labels.DEFAULT.outputLength()),
                    stringOr("timed-trace-label-hash-ids", DatasetSpec.Labels.DEFAULT.hashIds()))));
            default -> throw new IllegalArgumentException("--dataset-name '" + name + "' is not supported here; use"
                    + " random, sharegpt, custom (jsonl), fixed, sonnet, prefix_repetition or timed-trace");
        });
    }

    /**
     * A timed trace sends each request at its own offset (what vLLM does with {@code --self-timed}): an arrival
     * process given beside it ({@code --request-rate}, {@code --burstiness}, a ramp-up) is ignored with one warning
     * line each; {@code --max-concurrency} still caps requests in flight.
     */
    private void timedTraceLoad(LoadgenConfig.Builder b, Consumer<String> warn) {
        String rate = value("request-rate");
        if (rate != null && !rate.equalsIgnoreCase("inf")) {
            warn.accept("--request-rate " + rate + " is ignored: a timed trace sends each request at its own timestamp");
            b.requestRate(Double.POSITIVE_INFINITY);
        }
        String burst = value("burstiness");
        if (burst != null && doubleValue("burstiness", burst) != 1.0) {
            warn.accept("--burstiness " + burst + " is ignored: a timed trace sends each request at its own timestamp");
            b.burstiness(1.0);
        }
        if (value("ramp-up-strategy") != null) {
            warn.accept("--ramp-up-strategy " + value("ramp-up-strategy") + " is ignored: a timed trace sends each"
                    + " request at its own timestamp");
            b.rampUp(null);
        }
    }

    private void rampUp(LoadgenConfig.Builder b) {
        String strategy = value("ramp-up-strategy");
        String start = value("ramp-up-start-rps");
        String end = value("ramp-up-end-rps");
        if (strategy != null) {
            if (start == null || end == null) {
                throw new IllegalArgumentException("--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps");
            }
            b.rampUp(new LoadgenConfig.RampUp(strategy, doubleValue("ramp-up-start-rps", start),
                    doubleValue("ramp-up-end-rps", end)));
        } else if (start != null || end != null) {
            throw new IllegalArgumentException("--ramp-up-start-rps/--ramp-up-end-rps need --ramp-up-strategy linear|exponential");
        }
    }

    private void requestBody(LoadgenConfig.Builder b) {
        ifPresent("temperature", v -> b.sampling("temperature", doubleValue("temperature", v)));
        ifPresent("top-p", v -> b.sampling("top_p", doubleValue("top-p", v)));
        ifPresent("top-k", v -> b.sampling("top_k", intValue("top-k", v)));
        ifPresent("min-p", v -> b.sampling("min_p", doubleValue("min-p", v)));
        ifPresent("extra-body", v -> {
            try {
                b.extraBody(new ObjectMapper().readValue(v, new TypeReference<LinkedHashMap<String, Object>>() { }));
            } catch (IOException e) {
                throw new IllegalArgumentException("--extra-body is not a JSON object: " + firstLine(e.getMessage()));
            }
        });
    }

    private void metrics(LoadgenConfig.Builder b) {
        ifPresent("percentile-metrics", v -> {
            Set<String> pm = new LinkedHashSet<>();
            for (String s : v.split(",")) {
                if (!s.isBlank()) {
                    pm.add(s.trim().toLowerCase(Locale.ROOT));
                }
            }
            b.percentileMetrics(pm);
        });
        ifPresent("metric-percentiles", v -> {
            List<Double> ps = new ArrayList<>();
            for (String s : v.split(",")) {
                try {
                    ps.add(Double.parseDouble(s.trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--metric-percentiles value '" + s + "' is not a number");
                }
            }
            b.percentiles(ps);
        });
        for (String g : values("goodput")) {
            int c = g.indexOf(':');
            if (c <= 0) {
                throw new IllegalArgumentException("--goodput '" + g + "' must be KEY:MS (ttft, tpot or e2el)");
            }
            try {
                b.goodput(g.substring(0, c).toLowerCase(Locale.ROOT), Double.parseDouble(g.substring(c + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--goodput '" + g + "': '" + g.substring(c + 1) + "' is not a number of ms");
            }
        }
    }

    // ---------------------------------------------------------------- values

    private List<String> values(String name) {
        return flags.getOrDefault(name, List.of());
    }

    /** The flag's last value, stripped; null when absent. */
    private String value(String name) {
        List<String> v = values(name);
        return v.isEmpty() ? null : v.get(v.size() - 1).strip();
    }

    private void ifPresent(String name, Consumer<String> then) {
        String v = value(name);
        if (v != null) {
            then.accept(v);
        }
    }

    private int intOr(String name, int dflt) {
        String v = value(name);
        return v == null ? dflt : intValue(name, v);
    }

    private String stringOr(String name, String dflt) {
        String v = value(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    private double doubleOr(String name, double dflt) {
        String v = value(name);
        return v == null ? dflt : doubleValue(name, v);
    }

    private static int intValue(String name, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(bad(name, v, "a whole number", "e.g. --" + name + " 100"));
        }
    }

    private static long longValue(String name, String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(bad(name, v, "a whole number", "e.g. --" + name + " 0"));
        }
    }

    private static double doubleValue(String name, String v) {
        return number(name, v, "a number", "e.g. --" + name + " 1.0");
    }

    private static double number(String name, String v, String what, String fix) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(bad(name, v, what, fix));
        }
    }

    private static String bad(String name, String v, String what, String fix) {
        return "--" + name + " '" + v + "' must be " + what + " (fix: " + fix + ")";
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }
}
