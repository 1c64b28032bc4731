package io.isobench.task;

import io.isobench.loadgen.ServeFlags;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.parse.MetricRule;
import io.isobench.parse.ReadRule;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads the generic engine adapter's task sections ({@code offline:}, {@code serving:}, and the correctness gate's
 * {@code output:} and {@code command:}) for {@link SuiteLoader}, reporting every problem the same way: file, line,
 * field, what is wrong and the fix.
 */
final class GenericLoader {

    static final List<String> OFFLINE_KEYS = List.of("command", "metrics");
    static final List<String> METRIC_KEYS = List.of("name", "from", "path", "regex", "json_path", "unit", "better",
            "primary");
    static final List<String> OUTPUT_KEYS = List.of("from", "path", "regex", "json_path");
    static final List<String> SERVING_KEYS = List.of("server", "client", "model", "primary");
    /** The load generator's workload flags ({@code vllm bench serve} names) a serving task may set. */
    static final List<String> LOADGEN_FLAGS = ServeFlags.WORKLOAD.stream().map(f -> "--" + f).toList();
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{[^{}]*}");
    private static final String EXAMPLE = "[./run, \"{workdir}/model.bin\", -n, \"256\"]";

    private final SuiteNodes l;
    private final String suiteDir;

    GenericLoader(SuiteNodes loader, String suiteDir) {
        this.l = loader;
        this.suiteDir = suiteDir;
    }

    /**
     * The task's generic section; null when it has none or it is bad (problems reported). Tasks of another adapter
     * must not have one, and generic tasks need exactly one of {@code offline} and {@code serving}, and no
     * {@code perf_command} or {@code server_command}.
     */
    GenericTask task(Map<String, NodeTuple> m, Node taskNode, String field, String engine) {
        Map<String, NodeTuple> corr = correctnessKeys(m, field);
        boolean generic = "generic".equals(engine);
        if (!generic) {
            for (String k : List.of("offline", "serving")) {
                if (m.containsKey(k)) {
                    l.problem(m.get(k).getKeyNode(), field + "." + k, "belongs to the generic engine adapter (fix: "
                            + "engine.name: generic, or describe the task with perf_command)");
                }
            }
            for (String k : List.of("output", "command")) {
                if (corr.containsKey(k)) {
                    l.problem(corr.get(k).getKeyNode(), field + ".correctness." + k, "reads a generic offline"
                            + " command's text (fix: engine.name: generic with offline:, or use offline_command)");
                }
            }
            return null;
        }
        for (String k : List.of("perf_command", "server_command")) {
            if (m.containsKey(k)) {
                l.problem(m.get(k).getKeyNode(), field + "." + k, "is read by the vllm and toy adapters only (fix: "
                        + "describe the task with offline: {command, metrics} or serving: {server, client})");
            }
        }
        if (m.containsKey("offline") == m.containsKey("serving")) {
            l.problem(taskNode, field, (m.containsKey("offline") ? "has both offline and serving"
                    : "has neither offline nor serving") + " (fix: exactly one: offline: {command: [...], metrics:"
                    + " [...]} or serving: {server: [...], client: [...]})");
            return null;
        }
        if (m.containsKey("serving")) {
            for (String k : List.of("output", "command")) {
                if (corr.containsKey(k)) {
                    l.problem(corr.get(k).getKeyNode(), field + ".correctness." + k, "is for offline tasks: a"
                            + " serving task is probed through its server (fix: prompts, max_tokens, tolerance)");
                }
            }
            GenericTask.Serving s = serving(m.get("serving"), field + ".serving");
            return s == null ? null : new GenericTask(null, s);
        }
        for (String k : List.of("prompts", "max_tokens", "logprobs", "max_logprob_drift", "offline_command")) {
            if (corr.containsKey(k)) {
                l.problem(corr.get(k).getKeyNode(), field + ".correctness." + k, "is for server probes; an offline"
                        + " generic task's gate reads its command's text (fix: correctness: {output: {from: stdout},"
                        + " tolerance: 0})");
            }
        }
        GenericTask.Offline o = offline(m.get("offline"), field + ".offline", corr, field + ".correctness");
        return o == null ? null : new GenericTask(o, null);
    }

    private Map<String, NodeTuple> correctnessKeys(Map<String, NodeTuple> m, String field) {
        NodeTuple c = m.get("correctness");
        if (c == null || SuiteNodes.isNull(c.getValueNode())
                || !(c.getValueNode() instanceof org.yaml.snakeyaml.nodes.MappingNode mn)) {
            return Map.of();
        }
        Map<String, NodeTuple> out = new LinkedHashMap<>();
        for (NodeTuple t : mn.getValue()) {
            out.putIfAbsent(SuiteNodes.scalarText(t.getKeyNode()), t);
        }
        return out;
    }

    private GenericTask.Offline offline(NodeTuple t, String field, Map<String, NodeTuple> corr, String corrField) {
        Map<String, NodeTuple> m = l.mapping(t.getValueNode(), field, OFFLINE_KEYS);
        if (m == null) {
            return null;
        }
        if (!m.containsKey("command")) {
            l.problem(t.getValueNode(), field + ".command", "missing (fix: the benchmark's argv, e.g. " + EXAMPLE + ")");
        }
        List<String> command = command(m.get("command"), field + ".command", GenericTask.PLACEHOLDERS);
        List<MetricRule> rules = new ArrayList<>();
        String primary = null;
        boolean ok = command != null;
        NodeTuple mt = m.get("metrics");
        if (mt != null && !SuiteNodes.isNull(mt.getValueNode())) {
            if (!(mt.getValueNode() instanceof SequenceNode seq)) {
                l.problem(mt.getValueNode(), field + ".metrics", "must be a list (fix: - {name: tok_s, from: stderr,"
                        + " regex: 'achieved tok/s: ([0-9.]+)', unit: tok/s, better: higher, primary: true})");
                ok = false;
            } else {
                Set<String> names = new HashSet<>();
                int i = 0;
                for (Node n : seq.getValue()) {
                    String f = field + ".metrics[" + i++ + "]";
                    MetricRule r = metric(n, f);
                    if (r == null) {
                        ok = false;
                        continue;
                    }
                    if (!names.add(r.name())) {
                        l.problem(n, f + ".name", "duplicate metric '" + r.name() + "' (fix: names must be unique)");
                        ok = false;
                    }
                    if (r.primary()) {
                        if (primary != null) {
                            l.problem(n, f + ".primary", "a second primary metric (" + primary + " is the first)"
                                    + " (fix: exactly one metric has primary: true)");
                            ok = false;
                        }
                        primary = r.name();
                    }
                    if (!r.builtIn()) {
                        rules.add(r);
                    }
                }
            }
        }
        ReadRule output = null;
        NodeTuple ot = corr.get("output");
        if (ot != null && !SuiteNodes.isNull(ot.getValueNode())) {
            output = read(ot.getValueNode(), corrField + ".output", OUTPUT_KEYS, false);
            ok &= output != null;
        }
        List<String> probe = null;
        if (corr.containsKey("command")) {
            probe = command(corr.get("command"), corrField + ".command", GenericTask.PLACEHOLDERS);
            ok &= probe != null;
            if (output == null && probe != null) {
                l.problem(corr.get("command").getKeyNode(), corrField + ".command", "has no output rule to read"
                        + " (fix: correctness: {command: [...], output: {from: stdout}})");
                ok = false;
            }
        }
        if (!ok) {
            return null;
        }
        return new GenericTask.Offline(command, rules, primary == null ? MetricRule.WALL : primary, output, probe);
    }

    private MetricRule metric(Node n, String field) {
        Map<String, NodeTuple> m = l.mapping(n, field, METRIC_KEYS);
        if (m == null) {
            return null;
        }
        String name = l.string(m.get("name"), field + ".name", true);
        if (name == null) {
            if (!m.containsKey("name")) {
                l.problem(n, field + ".name", "missing (fix: a name with its unit, e.g. tok_s)");
            }
            return null;
        }
        Boolean primary = l.bool(m.get("primary"), field + ".primary");
        boolean isPrimary = primary != null && primary;
        if (!MetricRule.NAME.matcher(name).matches()) {
            l.problem(m.get("name").getValueNode(), field + ".name", "'" + name + "' is not a metric name (fix: lower"
                    + " case letters, digits and _, starting with a letter, e.g. tok_s)");
            return null;
        }
        if (MetricRule.BUILT_IN.contains(name)) {
            for (String k : METRIC_KEYS) {
                if (!k.equals("name") && !k.equals("primary") && m.containsKey(k)) {
                    l.problem(m.get(k).getKeyNode(), field + "." + k, name + " is measured by isobench (seconds,"
                            + " lower is better) (fix: give only name and primary: true)");
                    return null;
                }
            }
            return MetricRule.builtIn(name, isPrimary);
        }
        ReadRule read = read(n, field, METRIC_KEYS, true);
        String unit = l.string(m.get("unit"), field + ".unit", true);
        if (unit == null && !m.containsKey("unit")) {
            l.problem(n, field + ".unit", "missing (fix: the value's unit, e.g. tok/s, ms, s)");
        }
        String b = l.string(m.get("better"), field + ".better", true);
        Better better = b == null ? null : switch (b.strip()) {
            case "higher" -> Better.HIGHER;
            case "lower" -> Better.LOWER;
            default -> null;
        };
        if (b != null && better == null) {
            l.problem(m.get("better").getValueNode(), field + ".better", "'" + b + "' is not a direction (fix: higher"
                    + " or lower)");
        } else if (b == null && !m.containsKey("better")) {
            l.problem(n, field + ".better", "missing (fix: higher or lower: which way is an improvement)");
        }
        MetricDictionary.Definition known = MetricDictionary.lookup(name);
        if (known != null && unit != null && better != null
                && (!known.unit().equals(unit.strip()) || known.better() != better)) {
            l.problem(m.get("name").getValueNode(), field + ".name", "'" + name + "' is a built-in metric in "
                    + known.unit() + ", " + known.better().label() + " is better (fix: another name, or that unit and"
                    + " direction)");
            return null;
        }
        if (read == null || unit == null || better == null) {
            return null;
        }
        return new MetricRule(name, read, unit.strip(), better, isPrimary);
    }

    /**
     * A read rule from a mapping with {@code from} (stdout|stderr|file), {@code path} for files, and
     * {@code regex} or {@code json_path} (one of them required when {@code needsPattern}).
     */
    private ReadRule read(Node n, String field, List<String> keys, boolean needsPattern) {
        Map<String, NodeTuple> m = l.mapping(n, field, keys);
        if (m == null) {
            return null;
        }
        String from = l.string(m.get("from"), field + ".from", true);
        ReadRule.Source src = from == null ? null : ReadRule.Source.of(from.strip());
        if (from == null && !m.containsKey("from")) {
            l.problem(n, field + ".from", "missing (fix: stdout, stderr or file)");
        } else if (from != null && src == null) {
            l.problem(m.get("from").getValueNode(), field + ".from", "'" + from + "' is not a source (fix: stdout,"
                    + " stderr or file)");
        }
        String path = l.string(m.get("path"), field + ".path", true);
        if (src == ReadRule.Source.FILE && path == null && !m.containsKey("path")) {
            l.problem(n, field + ".path", "missing (fix: the file the command writes, relative to the arm's"
                    + " environment)");
            src = null;
        } else if (src != null && src != ReadRule.Source.FILE && m.containsKey("path")) {
            l.problem(m.get("path").getKeyNode(), field + ".path", "is for from: file (fix: remove it, or from: file)");
            src = null;
        }
        if (path != null) {
            path = path.replace("{suite_dir}", suiteDir);
        }
        String regex = l.string(m.get("regex"), field + ".regex", true);
        if (regex != null) {
            try {
                Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                l.problem(m.get("regex").getValueNode(), field + ".regex", "is not a valid regular expression ("
                        + e.getDescription() + ") (fix: e.g. 'achieved tok/s: ([0-9.]+)')");
                regex = null;
                src = null;
            }
        }
        String json = l.string(m.get("json_path"), field + ".json_path", true);
        if (json != null && !ReadRule.JSON_PATH.matcher(json).matches()) {
            l.problem(m.get("json_path").getValueNode(), field + ".json_path", "'" + json + "' is not a dotted path"
                    + " (fix: e.g. results.tok_s or runs[0].tok_s)");
            src = null;
        }
        if (m.containsKey("regex") && m.containsKey("json_path")) {
            l.problem(n, field, "has both regex and json_path (fix: one way to read the value)");
            return null;
        }
        if (needsPattern && !m.containsKey("regex") && !m.containsKey("json_path")) {
            l.problem(n, field, "has neither regex nor json_path (fix: e.g. regex: 'achieved tok/s: ([0-9.]+)')");
            return null;
        }
        if (src == null || (src == ReadRule.Source.FILE && path == null) || (m.containsKey("regex") && regex == null)
                || (m.containsKey("json_path") && json == null)) {
            return null;
        }
        return new ReadRule(src, src == ReadRule.Source.FILE ? path : null, regex, json);
    }

    private GenericTask.Serving serving(NodeTuple t, String field) {
        Map<String, NodeTuple> m = l.mapping(t.getValueNode(), field, SERVING_KEYS);
        if (m == null) {
            return null;
        }
        if (!m.containsKey("server")) {
            l.problem(t.getValueNode(), field + ".server", "missing (fix: the server's argv with {port}, e.g. [node,"
                    + " server.mjs, --port, \"{port}\"])");
        }
        List<String> server = command(m.get("server"), field + ".server", GenericTask.SERVER_PLACEHOLDERS);
        if (server != null && server.stream().noneMatch(w -> w.contains("{port}"))) {
            l.problem(m.get("server").getValueNode(), field + ".server", "has no {port} (fix: pass the port as"
                    + " \"{port}\"; isobench chooses it)");
            server = null;
        }
        List<String> client = l.argv(m.get("client"), field + ".client", true, "[--num-prompts, \"20\","
                + " --random-input-len, \"32\"]");
        boolean ok = server != null && (client != null || !m.containsKey("client"));
        if (client != null) {
            for (String w : client) {
                if (w.startsWith("--") && !LOADGEN_FLAGS.contains(w)) {
                    l.problem(m.get("client").getValueNode(), field + ".client", "'" + w + "' is not a load generator"
                            + " flag" + Nearest.of(w, LOADGEN_FLAGS).map(s -> " (did you mean " + s + "?)").orElse("")
                            + " (fix: one of " + String.join(", ", LOADGEN_FLAGS) + ")");
                    ok = false;
                }
            }
        }
        String model = l.string(m.get("model"), field + ".model", true);
        String primary = l.string(m.get("primary"), field + ".primary", true);
        if (primary != null) {
            MetricDictionary.Definition d = MetricDictionary.lookup(primary.strip());
            if (d == null || d.better() == Better.NONE) {
                l.problem(m.get("primary").getValueNode(), field + ".primary", "'" + primary + "' is not a load"
                        + " generator metric with a direction (fix: e.g. tpot_ms_mean, ttft_ms_median,"
                        + " output_throughput_tok_s)");
                ok = false;
            }
        }
        if (!ok) {
            return null;
        }
        // {suite_dir} in a client flag (a timed trace's --dataset-path beside the suite) is filled in as in the server's
        return new GenericTask.Serving(server, client == null ? List.of()
                : client.stream().map(w -> w.replace("{suite_dir}", suiteDir)).toList(), model,
                primary == null ? "tpot_ms_mean" : primary.strip());
    }

    /** An argv list whose placeholders are all known; {@code {suite_dir}} is filled in here. */
    private List<String> command(NodeTuple t, String field, List<String> placeholders) {
        List<String> argv = l.argv(t, field, false, EXAMPLE);
        if (argv == null) {
            return null;
        }
        for (String w : argv) {
            Matcher mm = PLACEHOLDER.matcher(w);
            while (mm.find()) {
                if (!placeholders.contains(mm.group())) {
                    l.problem(t.getValueNode(), field, "unknown placeholder " + mm.group()
                            + Nearest.of(mm.group(), placeholders).map(s -> " (did you mean " + s + "?)").orElse("")
                            + " (fix: use " + String.join(", ", placeholders) + ")");
                    return null;
                }
            }
        }
        return argv.stream().map(w -> w.replace("{suite_dir}", suiteDir)).toList();
    }
}
