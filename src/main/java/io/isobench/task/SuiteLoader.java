package io.isobench.task;

import io.isobench.IsobenchException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a suite YAML file into a {@link Suite}. Every problem is reported as {@code file:line: field: problem (fix)};
 * all problems of a file are collected and thrown together as one {@link IsobenchException.BadInput} (exit 2).
 * Unknown keys are errors that name the nearest known key.
 */
public final class SuiteLoader {

    private static final List<String> TOP_KEYS = List.of("name", "description", "engine", "tasks", "agents", "run",
            "recipes", "review");
    private static final List<String> ENGINE_KEYS = List.of("repo", "name", "build");
    private static final List<String> TASK_KEYS = List.of("id", "human_commit", "parent_commit", "perf_command", "model",
            "mode", "server_command", "gpus", "timeout_s", "correctness", "build", "accuracy", "review");
    private static final List<String> RECIPE_KEYS = List.of("name", "pip_pin", "env", "apply_patch", "replace_in_file",
            "tasks", "arms");
    private static final List<String> REPLACE_KEYS = List.of("path", "from", "to");
    private static final Pattern PIP_SPEC = Pattern.compile(
            "[A-Za-z0-9][A-Za-z0-9._-]*(\\[[A-Za-z0-9,._-]+])?==[A-Za-z0-9][A-Za-z0-9.+!_-]*");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final List<String> CORRECTNESS_KEYS = List.of("prompts", "max_tokens", "tolerance",
            "max_logprob_drift", "logprobs", "offline_command");
    private static final List<String> ACCURACY_KEYS = List.of("command", "score_regex", "json_path", "tolerance_abs",
            "tolerance_rel", "higher_is_better", "timeout_s");
    private static final List<String> REVIEW_KEYS = List.of("fail_on", "max_patch_lines", "max_patch_bytes",
            "engine_roots");
    /** Placeholders of correctness.offline_command. */
    public static final List<String> OFFLINE_PLACEHOLDERS = List.of("{prompts_file}", "{max_tokens}", "{model}",
            "{suite_dir}");
    /** Placeholders of accuracy.command. */
    public static final List<String> ACCURACY_PLACEHOLDERS = List.of("{model}", "{suite_dir}");
    private static final Pattern JSON_PATH = Pattern.compile("[^.\\[\\]]+(\\[\\d+])*(\\.[^.\\[\\]]+(\\[\\d+])*)*");
    private static final List<String> AGENT_KEYS = List.of("name", "model", "patches");
    private static final List<String> RUN_KEYS = List.of("rounds", "warmup_requests", "timeouts", "executor", "seed",
            "port_base", "aa");
    private static final List<String> TIMEOUT_KEYS = List.of("server_start_s", "run_s", "build_s");
    private static final List<String> MODE_LABELS = List.of("serving", "throughput", "latency", "prefix_caching",
            "standalone");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern REF = Pattern.compile("[^\\s~^:?*\\[\\\\]+");
    private static final Pattern TEMPLATE_FIELD = Pattern.compile("\\{[^{}]*}");

    private final String fileLabel;
    private final Path baseDir;
    private final List<String> problems = new ArrayList<>();
    private final boolean checkPaths;
    private TaskSpec.Review suiteReview;

    private SuiteLoader(String fileLabel, Path baseDir, boolean checkPaths) {
        this.fileLabel = fileLabel;
        this.baseDir = baseDir;
        this.checkPaths = checkPaths;
    }

    /** Loads and validates a suite file; a local engine repo and every patch file must exist. */
    public static Suite load(Path file) {
        return load(file, true);
    }

    /**
     * Loads a suite; with {@code checkPaths} false a missing local engine repo or patch file is not an error (for
     * {@code tasks lint}, which may run before the clone exists). Paths are still resolved.
     */
    public static Suite load(Path file, boolean checkPaths) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": cannot read the suite (" + e.getMessage()
                    + ") (fix: give the path of a suite YAML file)", e);
        }
        Path abs = file.toAbsolutePath().normalize();
        return new SuiteLoader(file.toString(), abs.getParent(), checkPaths).read(text, abs);
    }

    /** Parses suite text as if it were the file {@code file} (relative paths resolve against its folder). */
    public static Suite parse(String yamlText, Path file) {
        Path abs = file.toAbsolutePath().normalize();
        return new SuiteLoader(file.toString(), abs.getParent(), true).read(yamlText, abs);
    }

    private Suite read(String text, Path file) {
        Node root;
        try {
            LoaderOptions opts = new LoaderOptions();
            opts.setAllowDuplicateKeys(true); // checked here, with a line number
            root = new Yaml(new SafeConstructor(opts)).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            int line = e.getProblemMark() != null ? e.getProblemMark().getLine() + 1 : 1;
            throw IsobenchException.badInput("%s:%d: yaml: %s (fix: correct the YAML syntax)", fileLabel, line,
                    e.getProblem());
        } catch (YAMLException e) {
            throw IsobenchException.badInput("%s:1: yaml: %s (fix: correct the YAML syntax)", fileLabel, e.getMessage());
        }
        if (root == null) {
            throw IsobenchException.badInput("%s:1: suite: the file is empty (fix: see docs/suite-format.md)", fileLabel);
        }
        Map<String, NodeTuple> top = mapping(root, "suite", TOP_KEYS);
        if (top == null) {
            throw failure();
        }
        EngineSpec engine = engine(top.get("engine"), root);
        suiteReview = review(top.get("review"), "review");
        List<TaskSpec> tasks = tasks(top.get("tasks"), root);
        Set<String> taskIds = new HashSet<>();
        tasks.forEach(t -> taskIds.add(t.id()));
        List<AgentSpec> agents = agents(top.get("agents"), taskIds);
        RunConfig run = run(top.get("run"));
        List<Recipe> recipes = recipes(top.get("recipes"), taskIds, agents);
        if (!problems.isEmpty()) {
            throw failure();
        }
        return new Suite(file, engine, tasks, agents, run, recipes);
    }

    private IsobenchException.BadInput failure() {
        String msg = problems.size() == 1 ? problems.get(0)
                : problems.size() + " problems in the suite:\n  " + String.join("\n  ", problems);
        return new IsobenchException.BadInput(msg);
    }

    // --- sections ---

    private EngineSpec engine(NodeTuple t, Node root) {
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
            problem(m.get("name").getValueNode(), "engine.name", "'" + name + "' is not an engine adapter (fix: vllm or toy)");
            return null;
        }
        if (repo == null) {
            if (!m.containsKey("repo")) {
                problem(t.getValueNode(), "engine.repo", "missing (fix: a local clone path or a git URL)");
            }
            return null;
        }
        List<String> build = argv(m.get("build"), "engine.build", false);
        if (build == null) {
            build = List.of();
        }
        if (EngineSpec.looksLikeUrl(repo)) {
            return new EngineSpec(repo, null, name, build);
        }
        Path p = resolve(repo);
        if (checkPaths && !Files.isDirectory(p)) {
            problem(m.get("repo").getValueNode(), "engine.repo", "no such directory " + p
                    + " (fix: a local clone, relative to the suite's folder, or a git URL)");
            return null;
        }
        return new EngineSpec(repo, p, name, build);
    }

    private List<TaskSpec> tasks(NodeTuple t, Node root) {
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
            String human = ref(m, "human_commit", field, true);
            String parent = ref(m, "parent_commit", field, false);
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
            if (id != null && human != null) {
                out.add(new TaskSpec(id, human, parent, perf, model, mode, server, gpus, timeout, corr, line(n), build,
                        acc, merged));
            }
        }
        return out;
    }

    private void checkTemplate(Node node, String field, String template) {
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

    private TaskSpec.Correctness correctness(NodeTuple t, String field) {
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
                    OFFLINE_PLACEHOLDERS, "{prompts_file}");
        }
        return new TaskSpec.Correctness(prompts == null ? d.prompts() : prompts, max == null ? d.maxTokens() : max,
                tol == null ? d.tolerance() : tol, drift, logprobs != null && logprobs, offline);
    }

    /** An argv template that must run without a shell and use only the given placeholders; null when bad. */
    private String commandTemplate(Node node, String field, String template, List<String> placeholders,
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

    private TaskSpec.Accuracy accuracy(NodeTuple t, String field) {
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
                String tpl = commandTemplate(ct.getValueNode(), field + ".command", text, ACCURACY_PLACEHOLDERS, null);
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
                    if (!ACCURACY_PLACEHOLDERS.contains(mm.group())) {
                        problem(ct.getValueNode(), field + ".command", "unknown placeholder " + mm.group()
                                + " (fix: use " + String.join(", ", ACCURACY_PLACEHOLDERS) + ")");
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
            } catch (java.util.regex.PatternSyntaxException e) {
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

    private TaskSpec.Review review(NodeTuple t, String field) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), field, REVIEW_KEYS);
        if (m == null) {
            return null;
        }
        List<String> failOn = names(m.get("fail_on"), field + ".fail_on", CHECK_NAMES, true);
        Integer lines = integer(m.get("max_patch_lines"), field + ".max_patch_lines", 1, Integer.MAX_VALUE);
        Integer bytes = integer(m.get("max_patch_bytes"), field + ".max_patch_bytes", 1, Integer.MAX_VALUE);
        List<String> roots = names(m.get("engine_roots"), field + ".engine_roots", null, false);
        return new TaskSpec.Review(failOn, lines, bytes == null ? null : bytes.longValue(), roots);
    }

    /** Patch-review check names as the suite writes them (lower case). */
    public static final List<String> CHECK_NAMES = java.util.Arrays.stream(io.isobench.review.Check.values())
            .map(c -> c.name().toLowerCase(java.util.Locale.ROOT)).toList();

    /** A list of strings (a single string counts as a one-element list); checked against {@code known} if given. */
    private List<String> names(NodeTuple t, String field, List<String> known, boolean allowEmpty) {
        if (t == null) {
            return null;
        }
        Node v = t.getValueNode();
        List<Node> items = new ArrayList<>();
        if (v instanceof SequenceNode seq) {
            items.addAll(seq.getValue());
        } else if (v instanceof ScalarNode sc && !isNull(sc)) {
            items.add(sc);
        } else if (!isNull(v)) {
            problem(v, field, "must be a list (fix: [a, b])");
            return null;
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        for (Node n : items) {
            String f = field + "[" + i++ + "]";
            if (!(n instanceof ScalarNode sc) || isNull(n) || sc.getValue().isBlank()) {
                problem(n, f, "must be a non-empty string");
                continue;
            }
            String name = sc.getValue().strip();
            if (known != null) {
                String low = name.toLowerCase(java.util.Locale.ROOT);
                if (!known.contains(low)) {
                    problem(n, f, "'" + name + "' is not a review check"
                            + Nearest.of(low, known).map(x -> " (did you mean " + x + "?)").orElse("")
                            + " (fix: one of " + String.join(", ", known) + ")");
                    continue;
                }
                name = low;
            }
            out.add(name);
        }
        if (!allowEmpty && out.isEmpty() && items.isEmpty()) {
            problem(v, field, "the list is empty (fix: give at least one entry or omit the key)");
        }
        return out;
    }

    private Boolean bool(NodeTuple t, String field) {
        String s = string(t, field, true);
        if (s == null) {
            return null;
        }
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> {
                problem(t.getValueNode(), field, "'" + s + "' is not true or false (fix: true or false)");
                yield null;
            }
        };
    }

    private List<AgentSpec> agents(NodeTuple t, Set<String> taskIds) {
        List<AgentSpec> out = new ArrayList<>();
        if (t == null || isNull(t.getValueNode())) {
            return out;
        }
        if (!(t.getValueNode() instanceof SequenceNode seq)) {
            problem(t.getValueNode(), "agents", "must be a list (fix: - name: …)");
            return out;
        }
        Set<String> names = new HashSet<>();
        int i = 0;
        for (Node n : seq.getValue()) {
            String field = "agents[" + i++ + "]";
            Map<String, NodeTuple> m = mapping(n, field, AGENT_KEYS);
            if (m == null) {
                continue;
            }
            String name = string(m.get("name"), field + ".name", true);
            if (name == null) {
                if (!m.containsKey("name")) {
                    problem(n, field + ".name", "missing (fix: the agent's name, e.g. claude-code)");
                }
                continue;
            }
            if (!ID.matcher(name).matches() || name.equals("baseline") || name.equals("human")) {
                problem(m.get("name").getValueNode(), field + ".name", "'" + name + "' is not a usable agent name"
                        + " (fix: letters, digits, '.', '_', '-'; not baseline or human)");
                continue;
            }
            if (!names.add(io.isobench.Arm.normalizeAgent(name))) {
                problem(m.get("name").getValueNode(), field + ".name", "duplicate agent '" + name
                        + "' ('-' and '_' are the same in agent names) (fix: names must be unique)");
            }
            String model = string(m.get("model"), field + ".model", false);
            Map<String, Path> patches = new LinkedHashMap<>();
            NodeTuple pt = m.get("patches");
            if (pt != null && !isNull(pt.getValueNode())) {
                if (!(pt.getValueNode() instanceof MappingNode pm)) {
                    problem(pt.getValueNode(), field + ".patches", "must be a map of task id to patch file"
                            + " (fix: patches: {TASK_ID: path/to.patch})");
                } else {
                    for (NodeTuple e : pm.getValue()) {
                        String taskId = scalarText(e.getKeyNode());
                        String pf = field + ".patches." + taskId;
                        if (!taskIds.contains(taskId)) {
                            problem(e.getKeyNode(), pf, "no task with id '" + taskId + "'"
                                    + Nearest.of(taskId, taskIds).map(s -> " (did you mean " + s + "?)").orElse("")
                                    + " (fix: use an id from tasks)");
                            continue;
                        }
                        if (patches.containsKey(taskId)) {
                            problem(e.getKeyNode(), pf, "duplicate key (fix: one patch per task)");
                            continue;
                        }
                        String path = string(e, pf, true);
                        if (path == null) {
                            continue;
                        }
                        Path p = resolve(path);
                        if (checkPaths && !Files.isRegularFile(p)) {
                            problem(e.getValueNode(), pf, "no such file " + p
                                    + " (fix: a patch file, relative to the suite's folder)");
                            continue;
                        }
                        patches.put(taskId, p);
                    }
                }
            }
            out.add(new AgentSpec(name, model, patches));
        }
        return out;
    }

    /**
     * A command as an argv list ({@code [python3, -m, compileall, -q, .]}); a plain string is refused (isobench runs
     * commands without a shell). Null when absent or invalid; an empty list only when {@code emptyAllowed}.
     */
    private List<String> argv(NodeTuple t, String field, boolean emptyAllowed) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        String fix = " (fix: an argv list run without a shell, e.g. [python3, -m, compileall, -q, .]"
                + (emptyAllowed ? "; [] for no build" : "") + ")";
        if (!(t.getValueNode() instanceof SequenceNode seq)) {
            problem(t.getValueNode(), field, (t.getValueNode() instanceof ScalarNode s
                    ? "must be an argv list, not a shell string '" + s.getValue() + "'" : "must be an argv list") + fix);
            return null;
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        for (Node n : seq.getValue()) {
            if (!(n instanceof ScalarNode s) || isNull(n) || s.getValue().isEmpty()) {
                problem(n, field + "[" + i + "]", "must be a non-empty string" + fix);
                return null;
            }
            out.add(s.getValue());
            i++;
        }
        if (out.isEmpty() && !emptyAllowed) {
            problem(seq, field, "the list is empty" + fix);
            return null;
        }
        return out;
    }

    private List<Recipe> recipes(NodeTuple t, Set<String> taskIds, List<AgentSpec> agents) {
        List<Recipe> out = new ArrayList<>();
        if (t == null || isNull(t.getValueNode())) {
            return out;
        }
        if (!(t.getValueNode() instanceof SequenceNode seq)) {
            problem(t.getValueNode(), "recipes", "must be a list (fix: - name: …, pip_pin|env|apply_patch|replace_in_file: …)");
            return out;
        }
        Set<String> agentNames = new HashSet<>();
        agents.forEach(a -> agentNames.add(io.isobench.Arm.normalizeAgent(a.name())));
        Map<String, Integer> names = new LinkedHashMap<>();
        int i = 0;
        for (Node n : seq.getValue()) {
            String field = "recipes[" + i++ + "]";
            Map<String, NodeTuple> m = mapping(n, field, RECIPE_KEYS);
            if (m == null) {
                continue;
            }
            String name = string(m.get("name"), field + ".name", true);
            if (name == null && !m.containsKey("name")) {
                problem(n, field + ".name", "missing (fix: a short unique name, e.g. pin-numpy)");
            }
            if (name != null && !ID.matcher(name).matches()) {
                problem(m.get("name").getValueNode(), field + ".name", "'" + name
                        + "' is not a valid name (fix: letters, digits, '.', '_', '-')");
                name = null;
            }
            if (name != null) {
                Integer prev = names.putIfAbsent(name, line(m.get("name").getValueNode()));
                if (prev != null) {
                    problem(m.get("name").getValueNode(), field + ".name", "duplicate recipe '" + name
                            + "' (first at line " + prev + ") (fix: names must be unique)");
                }
            }
            List<Recipe.Kind> kinds = new ArrayList<>();
            for (Recipe.Kind k : Recipe.Kind.values()) {
                if (m.containsKey(k.key())) {
                    kinds.add(k);
                }
            }
            if (kinds.size() != 1) {
                problem(kinds.isEmpty() ? n : m.get(kinds.get(1).key()).getKeyNode(), field, (kinds.isEmpty()
                        ? "has no action" : "has " + kinds.size() + " actions ("
                        + String.join(", ", kinds.stream().map(Recipe.Kind::key).toList()) + ")")
                        + " (fix: exactly one of pip_pin, env, apply_patch, replace_in_file per recipe)");
                continue;
            }
            Recipe.Kind kind = kinds.get(0);
            NodeTuple at = m.get(kind.key());
            String af = field + "." + kind.key();
            Map<String, String> params = new LinkedHashMap<>();
            switch (kind) {
                case PIP_PIN -> {
                    String spec = string(at, af, true);
                    if (spec != null && !PIP_SPEC.matcher(spec.trim()).matches()) {
                        problem(at.getValueNode(), af, "'" + spec + "' is not an exact pin"
                                + " (fix: package==version, e.g. numpy==1.26.4)");
                        spec = null;
                    }
                    if (spec != null) {
                        params.put("spec", spec.trim());
                    }
                }
                case ENV -> {
                    if (!(at.getValueNode() instanceof MappingNode em) || em.getValue().isEmpty()) {
                        problem(at.getValueNode(), af, "must be a non-empty map of variable to value"
                                + " (fix: env: {VAR: value})");
                        break;
                    }
                    for (NodeTuple e : em.getValue()) {
                        String var = scalarText(e.getKeyNode());
                        if (!ENV_NAME.matcher(var).matches()) {
                            problem(e.getKeyNode(), af + "." + var, "is not a variable name"
                                    + " (fix: letters, digits and _, not starting with a digit)");
                            continue;
                        }
                        if (params.containsKey(var)) {
                            problem(e.getKeyNode(), af + "." + var, "duplicate key (fix: give it once)");
                            continue;
                        }
                        Node v = e.getValueNode();
                        if (!(v instanceof ScalarNode sv)) {
                            problem(v, af + "." + var, "must be a single value (fix: quote it as a string)");
                            continue;
                        }
                        params.put(var, isNull(v) ? "" : sv.getValue());
                    }
                }
                case APPLY_PATCH -> {
                    String path = string(at, af, true);
                    if (path != null) {
                        Path p = resolve(path);
                        if (checkPaths && !Files.isRegularFile(p)) {
                            problem(at.getValueNode(), af, "no such file " + p
                                    + " (fix: a patch file, relative to the suite's folder)");
                        } else {
                            params.put("path", p.toString());
                        }
                    }
                }
                case REPLACE_IN_FILE -> {
                    Map<String, NodeTuple> rm = mapping(at.getValueNode(), af, REPLACE_KEYS);
                    if (rm == null) {
                        break;
                    }
                    for (String k : REPLACE_KEYS) {
                        if (!rm.containsKey(k)) {
                            problem(at.getValueNode(), af + "." + k, "missing (fix: replace_in_file: {path: FILE,"
                                    + " from: OLD TEXT, to: NEW TEXT})");
                        }
                    }
                    String path = string(rm.get("path"), af + ".path", true);
                    String from = string(rm.get("from"), af + ".from", true);
                    String to = rm.containsKey("to") && isNull(rm.get("to").getValueNode()) ? ""
                            : string(rm.get("to"), af + ".to", false);
                    if (path != null) {
                        Path rp = Path.of(path).normalize();
                        if (rp.isAbsolute() || rp.startsWith("..")) {
                            problem(rm.get("path").getValueNode(), af + ".path", "'" + path
                                    + "' leaves the engine tree (fix: a path relative to the repository root)");
                            path = null;
                        }
                    }
                    if (path != null && from != null && to != null) {
                        params.put("path", path);
                        params.put("from", from);
                        params.put("to", to);
                    }
                }
                default -> throw new IllegalStateException(kind.toString());
            }
            List<String> tasks = stringList(m.get("tasks"), field + ".tasks");
            for (int k = 0; k < tasks.size(); k++) {
                String id = tasks.get(k);
                if (!taskIds.contains(id)) {
                    problem(((SequenceNode) m.get("tasks").getValueNode()).getValue().get(k), field + ".tasks[" + k
                            + "]", "no task with id '" + id + "'"
                            + Nearest.of(id, taskIds).map(s -> " (did you mean " + s + "?)").orElse("")
                            + " (fix: use an id from tasks)");
                }
            }
            List<String> arms = stringList(m.get("arms"), field + ".arms");
            for (int k = 0; k < arms.size(); k++) {
                String a = arms.get(k);
                boolean ok = a.equals("baseline") || a.equals("human") || a.equals("agent")
                        || (a.startsWith("agent:") && agentNames.contains(io.isobench.Arm.normalizeAgent(a.substring(6))));
                if (!ok) {
                    problem(((SequenceNode) m.get("arms").getValueNode()).getValue().get(k), field + ".arms[" + k
                            + "]", "'" + a + "' is not an arm"
                            + Nearest.of(a, List.of("baseline", "human", "agent")).map(s -> " (did you mean " + s + "?)")
                            .orElse("") + " (fix: baseline, human, agent (every agent) or agent:NAME of a declared agent)");
                }
            }
            int expected = kind == Recipe.Kind.ENV ? 1 : kind == Recipe.Kind.REPLACE_IN_FILE ? 3 : 1;
            if (name != null && params.size() >= expected) {
                out.add(new Recipe(name, kind, params, tasks, arms, line(n)));
            }
        }
        return out;
    }

    /** A list of strings; empty when absent (problems reported). */
    private List<String> stringList(NodeTuple t, String field) {
        if (t == null || isNull(t.getValueNode())) {
            return List.of();
        }
        if (!(t.getValueNode() instanceof SequenceNode seq)) {
            problem(t.getValueNode(), field, "must be a list (fix: [a, b])");
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Node n : seq.getValue()) {
            out.add(n instanceof ScalarNode s ? s.getValue() : "<" + n.getNodeId() + ">");
        }
        return out;
    }

    private RunConfig run(NodeTuple t) {
        RunConfig d = RunConfig.DEFAULT;
        if (t == null || isNull(t.getValueNode())) {
            return d;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), "run", RUN_KEYS);
        if (m == null) {
            return d;
        }
        Integer rounds = integer(m.get("rounds"), "run.rounds", 1, 1000);
        Integer warm = integer(m.get("warmup_requests"), "run.warmup_requests", 0, 1_000_000);
        String executor = string(m.get("executor"), "run.executor", false);
        if (executor != null && !RunConfig.EXECUTORS.contains(executor)) {
            problem(m.get("executor").getValueNode(), "run.executor", "'" + executor + "' is not an executor"
                    + Nearest.of(executor, RunConfig.EXECUTORS).map(s -> " (did you mean " + s + "?)").orElse("")
                    + " (fix: local, docker, slurm or kubernetes)");
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
        return new RunConfig(rounds == null ? d.rounds() : rounds, warm == null ? d.warmupRequests() : warm, timeouts,
                executor == null ? d.executor() : executor, seed == null ? d.seed() : seed, port,
                aa == null ? d.aa() : aa);
    }

    // --- node helpers ---

    /** The mapping's entries by key, with unknown and duplicate keys reported; null when the node is not a mapping. */
    private Map<String, NodeTuple> mapping(Node node, String field, List<String> known) {
        if (!(node instanceof MappingNode mn)) {
            problem(node, field, "must be a mapping of key: value" + (node instanceof ScalarNode s && !isNull(s)
                    ? ", not '" + s.getValue() + "'" : "") + " (fix: see docs/suite-format.md)");
            return null;
        }
        Map<String, NodeTuple> out = new LinkedHashMap<>();
        for (NodeTuple t : mn.getValue()) {
            String key = scalarText(t.getKeyNode());
            String where = field.equals("suite") ? key : field + "." + key;
            if (!known.contains(key)) {
                problem(t.getKeyNode(), where, "unknown key"
                        + Nearest.of(key, known).map(s -> " (did you mean " + s + "?)").orElse("")
                        + " (fix: known keys here: " + String.join(", ", known) + ")");
                continue;
            }
            if (out.containsKey(key)) {
                problem(t.getKeyNode(), where, "duplicate key (first at line "
                        + line(out.get(key).getKeyNode()) + ") (fix: give it once)");
                continue;
            }
            out.put(key, t);
        }
        return out;
    }

    private String string(NodeTuple t, String field, boolean required) {
        if (t == null) {
            return null;
        }
        Node v = t.getValueNode();
        if (isNull(v)) {
            if (required) {
                problem(v, field, "is empty (fix: give a value)");
            }
            return null;
        }
        if (!(v instanceof ScalarNode s)) {
            problem(v, field, "must be a single value, not a " + (v instanceof SequenceNode ? "list" : "mapping")
                    + " (fix: quote it as a string)");
            return null;
        }
        if (required && s.getValue().isBlank()) {
            problem(v, field, "is empty (fix: give a value)");
            return null;
        }
        return s.getValue();
    }

    private String ref(Map<String, NodeTuple> m, String key, String field, boolean required) {
        NodeTuple t = m.get(key);
        if (t == null) {
            if (required) {
                problem(m.isEmpty() ? null : m.values().iterator().next().getKeyNode(), field + "." + key,
                        "missing (fix: the commit hash, e.g. 0d243f2a54fbd1c56da8a571f0899c30b6aba5d9)");
            }
            return null;
        }
        String v = string(t, field + "." + key, required);
        if (v == null) {
            return null;
        }
        v = v.trim();
        if (!REF.matcher(v).matches()) {
            problem(t.getValueNode(), field + "." + key, "'" + v + "' is not a git commit or ref (fix: a commit hash)");
            return null;
        }
        return v;
    }

    private Integer integer(NodeTuple t, String field, long min, long max) {
        String s = string(t, field, true);
        if (s == null) {
            return null;
        }
        long v;
        try {
            v = Long.parseLong(s.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            problem(t.getValueNode(), field, "'" + s + "' is not an integer (fix: a whole number)");
            return null;
        }
        if (v < min || v > max) {
            problem(t.getValueNode(), field, v + " is out of range (fix: " + min + ".."
                    + (max == Integer.MAX_VALUE ? "" : Long.toString(max)) + ")");
            return null;
        }
        return (int) v;
    }

    private Double decimal(NodeTuple t, String field, double min, double max) {
        String s = string(t, field, true);
        if (s == null) {
            return null;
        }
        double v;
        try {
            v = Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            problem(t.getValueNode(), field, "'" + s + "' is not a number (fix: e.g. 0.05)");
            return null;
        }
        if (!(v >= min && v <= max)) {
            problem(t.getValueNode(), field, s + " is out of range (fix: " + min + ".." + max + ")");
            return null;
        }
        return v;
    }

    private static boolean isNull(Node n) {
        return n instanceof ScalarNode s && (Tag.NULL.equals(s.getTag()));
    }

    private static String scalarText(Node n) {
        return n instanceof ScalarNode s ? s.getValue() : "<" + n.getNodeId() + ">";
    }

    private static int line(Node n) {
        return n == null || n.getStartMark() == null ? 1 : n.getStartMark().getLine() + 1;
    }

    private Path resolve(String path) {
        Path p = Path.of(path);
        return (p.isAbsolute() ? p : baseDir.resolve(p)).normalize();
    }

    private void problem(Node node, String field, String message) {
        problems.add(fileLabel + ":" + line(node) + ": " + field + ": " + message);
    }
}
