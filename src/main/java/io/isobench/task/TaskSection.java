package io.isobench.task;

import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads the suite's {@code tasks:} list and each task's {@code correctness:}, {@code accuracy:} and
 * {@code review:} (also the suite-wide {@code review:}) for {@link SuiteLoader}; the generic adapter's sections go
 * to {@link GenericLoader}.
 */
final class TaskSection extends SuiteNodes {
    private static final List<String> TASK_KEYS = List.of("id", "human_commit", "parent_commit", "perf_command", "model",
            "mode", "server_command", "gpus", "timeout_s", "correctness", "build", "accuracy", "review", "offline", "serving",
            "versions", "artifacts", "sweep");
    private static final List<String> CORRECTNESS_KEYS = List.of("prompts", "max_tokens", "tolerance",
            "max_logprob_drift", "logprobs", "offline_command", "output", "command");
    private static final List<String> ACCURACY_KEYS = List.of("command", "score_regex", "json_path", "tolerance_abs",
            "tolerance_rel", "higher_is_better", "timeout_s");
    private static final List<String> SWEEP_KEYS = List.of("request_rate", "max_concurrency", "min_good_fraction",
            "auto", "start_rps", "max_pilots");
    private static final List<String> REVIEW_KEYS = List.of("fail_on", "max_patch_lines", "max_patch_bytes",
            "engine_roots");
    private static final Pattern JSON_PATH = Pattern.compile("[^.\\[\\]]+(\\[\\d+])*(\\.[^.\\[\\]]+(\\[\\d+])*)*");
    private static final List<String> MODE_LABELS = List.of("serving", "throughput", "latency", "prefix_caching",
            "standalone");

    private final EngineSection engine;
    private final String engineName;
    private final EngineSpec engineSpec;
    private final GenericLoader generic;
    /** The suite-wide review settings, under each task's own. */
    TaskSpec.Review suiteReview;

    TaskSection(EngineSection engine) {
        super(engine);
        this.engine = engine;
        this.engineName = engine.engineName;
        this.engineSpec = engine.engineSpec;
        this.generic = new GenericLoader(this, baseDir.toString());
    }

    List<TaskSpec> tasks(NodeTuple t, Node root) {
        List<TaskSpec> out = new ArrayList<>();
        if (t == null) {
            problem(root, "tasks", "missing (fix: a list of tasks, each with id, human_commit, perf_command)");
            return out;
        }
        if (!(t.getValueNode() instanceof SequenceNode seq)) {
            problem(t.getValueNode(), "tasks", "must be a list (fix: - id: …)");
            return out;
        }
        if (seq.getValue().isEmpty()) {
            problem(seq, "tasks", "the list is empty (fix: add at least one task)");
        }
        Map<String, Integer> ids = new LinkedHashMap<>();
        int i = 0;
        for (Node n : seq.getValue()) {
            String field = "tasks[" + i++ + "]";
            Map<String, NodeTuple> m = mapping(n, field, TASK_KEYS);
            if (m == null) {
                continue;
            }
            String id = string(m.get("id"), field + ".id", true);
            if (id == null && !m.containsKey("id")) {
                problem(n, field + ".id", "missing (fix: a short unique id such as the commit's first 8 hex digits)");
            }
            if (id != null && !ID.matcher(id).matches()) {
                problem(m.get("id").getValueNode(), field + ".id", "'" + id
                        + "' is not a valid id (fix: letters, digits, '.', '_', '-')");
                id = null;
            }
            if (id != null) {
                Integer prev = ids.putIfAbsent(id, line(m.get("id").getValueNode()));
                if (prev != null) {
                    problem(m.get("id").getValueNode(), field + ".id", "duplicate id '" + id + "' (first at line "
                            + prev + ") (fix: ids must be unique)");
                }
            }
            // a track task (isobench track) names no commits: its commits are a range given on the command line
            boolean tracked = !m.containsKey("human_commit");
            String human = ref(m, "human_commit", field, false);
            String parent = ref(m, "parent_commit", field, false);
            if (tracked && parent != null) {
                problem(m.get("parent_commit").getKeyNode(), field + ".parent_commit", "without human_commit (fix: add"
                        + " human_commit, or drop parent_commit for a track task: isobench track --range REV1..REV2)");
            }
            String perf = string(m.get("perf_command"), field + ".perf_command", false);
            String model = string(m.get("model"), field + ".model", false);
            String mode = string(m.get("mode"), field + ".mode", false);
            if (mode != null && !MODE_LABELS.contains(mode)) {
                problem(m.get("mode").getValueNode(), field + ".mode", "'" + mode + "' is not a mode"
                        + Nearest.of(mode, MODE_LABELS).map(s -> " (did you mean " + s + "?)").orElse("")
                        + " (fix: serving, throughput, latency or prefix_caching; omit it to infer from perf_command)");
                mode = null;
            }
            String server = string(m.get("server_command"), field + ".server_command", false);
            if (server != null) {
                checkTemplate(m.get("server_command").getValueNode(), field + ".server_command", server);
            }
            Integer gpus = integer(m.get("gpus"), field + ".gpus", 1, 1024);
            Integer timeout = integer(m.get("timeout_s"), field + ".timeout_s", 1, Integer.MAX_VALUE);
            TaskSpec.Correctness corr = correctness(m.get("correctness"), field + ".correctness");
            List<String> build = argv(m.get("build"), field + ".build", true);
            TaskSpec.Accuracy acc = accuracy(m.get("accuracy"), field + ".accuracy");
            TaskSpec.Review rev = review(m.get("review"), field + ".review");
            TaskSpec.Review merged = rev == null ? suiteReview : rev.over(suiteReview);
            GenericTask g = engineName == null ? null : generic.task(m, n, field, engineName);
            if (g != null) {
                perf = g.display();
                boolean labelOk = g.serving() != null ? "serving".equals(mode)
                        : "throughput".equals(mode) || "latency".equals(mode);
                if (mode != null && !labelOk) {
                    problem(m.get("mode").getValueNode(), field + ".mode", "'" + mode + "' does not fit a "
                            + (g.serving() != null ? "serving" : "offline") + " task (fix: " + (g.serving() != null
                            ? "serving" : "throughput or latency") + ", or omit it)");
                }
            }
            if (engineSpec != null && engineSpec.artifact() != null && parent == null && human != null) {
                problem(n, field + ".parent_commit", "missing: arms from prebuilt artifacts have no git history to"
                        + " find the parent in (fix: the baseline's commit or version, e.g. parent_commit: 3.21.1)");
            }
            TaskSpec.ArmArtifacts arts = engine.armArtifacts(m, field);
            Sweep sweep = sweep(m.get("sweep"), field + ".sweep");
            boolean commitsOk = human != null || tracked && parent == null;
            if (id != null && commitsOk && (g != null || !"generic".equals(engineName))) {
                TaskSpec task = new TaskSpec(id, new TaskSpec.Commits(human, parent), new TaskSpec.Workload(perf, model,
                        mode, server, g, sweep), new TaskSpec.Limits(gpus, timeout), new TaskSpec.Gates(corr, acc,
                        merged), new TaskSpec.Setup(build, arts), line(n));
                if (sweep != null) {
                    checkSweep(m.get("sweep").getValueNode(), field + ".sweep", task);
                }
                out.add(task);
            }
        }
        return out;
    }

    /**
     * A task's {@code sweep:}: {@code auto}, or a mapping with one of {@code request_rate} / {@code max_concurrency}
     * (a list of ascending positive points) and an optional {@code min_good_fraction}; null when absent or bad.
     */
    Sweep sweep(NodeTuple t, String field) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        if (t.getValueNode() instanceof ScalarNode sc) {
            if ("auto".equals(sc.getValue().strip())) {
                return new Sweep(Sweep.Kind.AUTO, List.of(), Sweep.DEFAULT_MIN_GOOD_FRACTION);
            }
            problem(sc, field, "'" + sc.getValue() + "' is not a sweep (fix: auto, or {request_rate: [1, 2, 4]} or"
                    + " {max_concurrency: [1, 4, 16]})");
            return null;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), field, SWEEP_KEYS);
        if (m == null) {
            return null;
        }
        Double fraction = decimal(m.get("min_good_fraction"), field + ".min_good_fraction", 1e-9, 1);
        double minGood = fraction == null ? Sweep.DEFAULT_MIN_GOOD_FRACTION : fraction;
        if (m.containsKey("auto")) {
            return autoSweep(m, field, minGood);
        }
        if (m.containsKey("start_rps") || m.containsKey("max_pilots")) {
            problem(t.getValueNode(), field, "start_rps and max_pilots set an auto sweep's pilots (fix: add auto: true,"
                    + " or remove them)");
            return null;
        }
        boolean rate = m.containsKey("request_rate");
        if (rate == m.containsKey("max_concurrency")) {
            problem(t.getValueNode(), field, (rate ? "has both request_rate and max_concurrency"
                    : "has neither request_rate nor max_concurrency") + " (fix: one list of load points, e.g."
                    + " request_rate: [1, 2, 4])");
            return null;
        }
        String key = rate ? "request_rate" : "max_concurrency";
        Node v = m.get(key).getValueNode();
        if (!(v instanceof SequenceNode seq) || seq.getValue().isEmpty()) {
            problem(v, field + "." + key, "must be a non-empty list of load points (fix: e.g. [1, 2, 4])");
            return null;
        }
        List<Double> points = new ArrayList<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            NodeTuple item = new NodeTuple(m.get(key).getKeyNode(), seq.getValue().get(i));
            String f = field + "." + key + "[" + i + "]";
            Integer n = rate ? null : integer(item, f, 1, 1_000_000);
            Double p = rate ? decimal(item, f, 1e-6, 1e9) : n == null ? null : Double.valueOf(n);
            if (p == null) {
                return null;
            }
            if (!points.isEmpty() && !(p > points.get(points.size() - 1))) {
                problem(seq.getValue().get(i), field + "." + key + "[" + i + "]", Sweep.text(p)
                        + " is not above the point before it (fix: points in strictly ascending order)");
                return null;
            }
            points.add(p);
        }
        if (points.size() > Sweep.MAX_POINTS) {
            problem(seq, field + "." + key, points.size() + " points (fix: at most " + Sweep.MAX_POINTS
                    + "; each point is a run per arm and round)");
            return null;
        }
        return new Sweep(rate ? Sweep.Kind.REQUEST_RATE : Sweep.Kind.MAX_CONCURRENCY, points,
                fraction == null ? Sweep.DEFAULT_MIN_GOOD_FRACTION : fraction);
    }

    /** {@code {auto: true, start_rps: R, max_pilots: N, min_good_fraction: F}}: an auto sweep with its pilot settings. */
    private Sweep autoSweep(Map<String, NodeTuple> m, String field, double minGood) {
        Node a = m.get("auto").getValueNode();
        if (!(a instanceof ScalarNode sc) || !"true".equals(sc.getValue().strip())) {
            problem(a, field + ".auto", "must be true (fix: auto: true, or list the points: request_rate: [1, 2, 4])");
            return null;
        }
        if (m.containsKey("request_rate") || m.containsKey("max_concurrency")) {
            problem(a, field, "auto finds the points itself (fix: auto: true, or a list of points, not both)");
            return null;
        }
        Double start = m.containsKey("start_rps") ? decimal(m.get("start_rps"), field + ".start_rps", 1e-6, 1e9)
                : Double.valueOf(Sweep.Pilots.DEFAULTS.startRps());
        Integer max = m.containsKey("max_pilots") ? integer(m.get("max_pilots"), field + ".max_pilots", 1, 32)
                : Integer.valueOf(Sweep.Pilots.DEFAULTS.maxPilots());
        if (start == null || max == null) {
            return null;
        }
        return new Sweep(Sweep.Kind.AUTO, List.of(), minGood, new Sweep.Pilots(start, max));
    }

    /** A sweep needs a serving task whose client names its SLO targets ({@code --goodput}). */
    private void checkSweep(Node node, String field, TaskSpec task) {
        if (task.mode().filter(x -> x == io.isobench.Mode.SERVING).isEmpty()) {
            problem(node, field, "a load sweep needs a serving task (fix: a vllm bench serve perf_command, or"
                    + " remove sweep)");
            return;
        }
        ParsedPerfCommand p = task.parsedCommand();
        if (p.client() == null || p.client().get("--goodput").isEmpty()) {
            problem(node, field, "a load sweep needs SLO targets to find the capacity (fix: add e.g. --goodput"
                    + " ttft:500 tpot:50 to perf_command)");
        }
    }

    void checkTemplate(Node node, String field, String template) {
        Shell.Result r = Shell.tokenize(template);
        if (r.error() != null || !r.operators().isEmpty() || !r.expansions().isEmpty()) {
            problem(node, field, "needs a shell (" + (r.error() != null ? r.error()
                    : !r.operators().isEmpty() ? "operators " + String.join(" ", r.operators())
                    : "expansion " + String.join(" ", r.expansions()))
                    + "); isobench runs it as an argv list (fix: one command, placeholders {model} {host} {port}"
                    + " {server_flags})");
            return;
        }
        Matcher mm = TEMPLATE_FIELD.matcher(template);
        while (mm.find()) {
            if (!TaskSpec.SERVER_PLACEHOLDERS.contains(mm.group())) {
                problem(node, field, "unknown placeholder " + mm.group()
                        + Nearest.of(mm.group(), TaskSpec.SERVER_PLACEHOLDERS).map(s -> " (did you mean " + s + "?)").orElse("")
                        + " (fix: use " + String.join(", ", TaskSpec.SERVER_PLACEHOLDERS) + ")");
            }
        }
        if (!template.contains("{port}")) {
            problem(node, field, "has no {port} (fix: pass --port {port}; isobench chooses the port)");
        }
    }

    TaskSpec.Correctness correctness(NodeTuple t, String field) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), field, CORRECTNESS_KEYS);
        if (m == null) {
            return null;
        }
        TaskSpec.Correctness d = TaskSpec.Correctness.DEFAULT;
        Integer prompts = integer(m.get("prompts"), field + ".prompts", 1, 100_000);
        Integer max = integer(m.get("max_tokens"), field + ".max_tokens", 1, 1_000_000);
        Double tol = decimal(m.get("tolerance"), field + ".tolerance", 0, 1);
        Double drift = decimal(m.get("max_logprob_drift"), field + ".max_logprob_drift", 0, 1e9);
        Boolean logprobs = bool(m.get("logprobs"), field + ".logprobs");
        String offline = string(m.get("offline_command"), field + ".offline_command", true);
        if (offline != null) {
            offline = commandTemplate(m.get("offline_command").getValueNode(), field + ".offline_command", offline,
                    SuiteLoader.OFFLINE_PLACEHOLDERS, "{prompts_file}");
        }
        return new TaskSpec.Correctness(prompts == null ? d.prompts() : prompts, max == null ? d.maxTokens() : max,
                tol == null ? d.tolerance() : tol, drift, logprobs != null && logprobs, offline);
    }

    /** An argv template that must run without a shell and use only the given placeholders; null when bad. */
    String commandTemplate(Node node, String field, String template, List<String> placeholders,
                                   String required) {
        Shell.Result r = Shell.tokenize(template);
        if (r.error() != null || !r.operators().isEmpty() || !r.expansions().isEmpty()) {
            problem(node, field, "needs a shell (" + (r.error() != null ? r.error()
                    : !r.operators().isEmpty() ? "operators " + String.join(" ", r.operators())
                    : "expansion " + String.join(" ", r.expansions()))
                    + "); isobench runs it as an argv list (fix: one command; placeholders "
                    + String.join(" ", placeholders) + ")");
            return null;
        }
        boolean ok = true;
        Matcher mm = TEMPLATE_FIELD.matcher(template);
        while (mm.find()) {
            if (!placeholders.contains(mm.group())) {
                problem(node, field, "unknown placeholder " + mm.group()
                        + Nearest.of(mm.group(), placeholders).map(x -> " (did you mean " + x + "?)").orElse("")
                        + " (fix: use " + String.join(", ", placeholders) + ")");
                ok = false;
            }
        }
        if (required != null && !template.contains(required)) {
            problem(node, field, "has no " + required + " (fix: isobench writes the probe prompts to "
                    + required + ", one JSON string per line)");
            ok = false;
        }
        return ok ? template : null;
    }

    TaskSpec.Accuracy accuracy(NodeTuple t, String field) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), field, ACCURACY_KEYS);
        if (m == null) {
            return null;
        }
        List<String> command = null;
        NodeTuple ct = m.get("command");
        if (ct == null) {
            problem(t.getValueNode(), field + ".command", "missing (fix: command: [python3, eval.py, --model, {model}])");
        } else if (ct.getValueNode() instanceof SequenceNode seq) {
            command = new ArrayList<>();
            int i = 0;
            for (Node w : seq.getValue()) {
                if (!(w instanceof ScalarNode sc) || isNull(w)) {
                    problem(w, field + ".command[" + i + "]", "must be a string (fix: quote it)");
                    command = null;
                    break;
                }
                command.add(sc.getValue());
                i++;
            }
            if (command != null && command.isEmpty()) {
                problem(seq, field + ".command", "the list is empty (fix: the eval program and its arguments)");
                command = null;
            }
        } else {
            String text = string(ct, field + ".command", true);
            if (text != null) {
                String tpl = commandTemplate(ct.getValueNode(), field + ".command", text, SuiteLoader.ACCURACY_PLACEHOLDERS, null);
                if (tpl != null) {
                    command = new ArrayList<>();
                    for (List<Shell.Word> seg : Shell.tokenize(tpl).segments()) {
                        for (Shell.Word w : seg) {
                            command.add(w.text());
                        }
                    }
                }
            }
        }
        if (command != null) {
            for (String w : command) {
                Matcher mm = TEMPLATE_FIELD.matcher(w);
                while (mm.find()) {
                    if (!SuiteLoader.ACCURACY_PLACEHOLDERS.contains(mm.group())) {
                        problem(ct.getValueNode(), field + ".command", "unknown placeholder " + mm.group()
                                + " (fix: use " + String.join(", ", SuiteLoader.ACCURACY_PLACEHOLDERS) + ")");
                        command = null;
                        break;
                    }
                }
                if (command == null) {
                    break;
                }
            }
        }
        String regex = string(m.get("score_regex"), field + ".score_regex", true);
        if (regex != null) {
            try {
                Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                problem(m.get("score_regex").getValueNode(), field + ".score_regex", "is not a valid regular expression ("
                        + e.getDescription() + ") (fix: e.g. 'accuracy: ([0-9.]+)')");
                regex = null;
            }
        }
        String path = string(m.get("json_path"), field + ".json_path", true);
        if (path != null && !JSON_PATH.matcher(path).matches()) {
            problem(m.get("json_path").getValueNode(), field + ".json_path", "'" + path
                    + "' is not a dotted path (fix: e.g. results.gsm8k.exact_match or scores[0])");
            path = null;
        }
        boolean hasRegex = m.containsKey("score_regex");
        boolean hasPath = m.containsKey("json_path");
        if (hasRegex == hasPath) {
            problem(t.getValueNode(), field, (hasRegex ? "has both score_regex and json_path" : "has neither score_regex"
                    + " nor json_path") + " (fix: give exactly one way to read the score)");
        }
        Double abs = decimal(m.get("tolerance_abs"), field + ".tolerance_abs", 0, 1e12);
        Double rel = decimal(m.get("tolerance_rel"), field + ".tolerance_rel", 0, 1);
        Boolean higher = bool(m.get("higher_is_better"), field + ".higher_is_better");
        Integer timeout = integer(m.get("timeout_s"), field + ".timeout_s", 1, Integer.MAX_VALUE);
        if (command == null || hasRegex == hasPath || (hasRegex && regex == null) || (hasPath && path == null)) {
            return null;
        }
        return new TaskSpec.Accuracy(command, regex, path, abs == null ? 0 : abs, rel == null ? 0 : rel,
                higher == null || higher, timeout);
    }

    TaskSpec.Review review(NodeTuple t, String field) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), field, REVIEW_KEYS);
        if (m == null) {
            return null;
        }
        List<String> failOn = names(m.get("fail_on"), field + ".fail_on", SuiteLoader.CHECK_NAMES, true);
        Integer lines = integer(m.get("max_patch_lines"), field + ".max_patch_lines", 1, Integer.MAX_VALUE);
        Integer bytes = integer(m.get("max_patch_bytes"), field + ".max_patch_bytes", 1, Integer.MAX_VALUE);
        List<String> roots = names(m.get("engine_roots"), field + ".engine_roots", null, false);
        return new TaskSpec.Review(failOn, lines, bytes == null ? null : bytes.longValue(), roots);
    }
}
