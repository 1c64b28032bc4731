package io.isobench.task;

import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the suite's {@code agents:} and {@code recipes:} lists for {@link SuiteLoader}.
 */
final class AgentSection extends SuiteNodes {
    private static final List<String> AGENT_KEYS = List.of("name", "model", "patches", "runner");
    /** An attempt of an agent written by {@code isobench agents run}: NAME@k. */
    private static final Pattern ATTEMPT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*@[1-9][0-9]{0,3}");
    private static final List<String> RECIPE_KEYS = List.of("name", "pip_pin", "env", "apply_patch", "replace_in_file",
            "tasks", "arms");
    private static final List<String> REPLACE_KEYS = List.of("path", "from", "to");
    private static final Pattern PIP_SPEC = Pattern.compile(
            "[A-Za-z0-9][A-Za-z0-9._-]*(\\[[A-Za-z0-9,._-]+])?==[A-Za-z0-9][A-Za-z0-9.+!_-]*");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final EngineSpec engineSpec;

    AgentSection(SuiteNodes shared, EngineSpec engineSpec) {
        super(shared);
        this.engineSpec = engineSpec;
    }

    List<AgentSpec> agents(NodeTuple t, Set<String> taskIds) {
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
            if (!(ID.matcher(name).matches() || ATTEMPT_NAME.matcher(name).matches()) || name.equals("baseline")
                    || name.equals("human")) {
                problem(m.get("name").getValueNode(), field + ".name", "'" + name + "' is not a usable agent name"
                        + " (fix: letters, digits, '.', '_', '-', optionally @N for attempt N; not baseline or human)");
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
                        if (engineSpec != null && engineSpec.artifact() != null) {
                            problem(e.getKeyNode(), pf, "arms of this engine are prebuilt artifacts: an agent patch"
                                    + " needs a source build (fix: engine.repo with a build step for agent arms)");
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
            AgentRunner runner = new AgentRunnerSection(this).runner(m.get("runner"), field + ".runner");
            out.add(new AgentSpec(name, model, patches, runner));
        }
        return out;
    }

    List<Recipe> recipes(NodeTuple t, Set<String> taskIds, List<AgentSpec> agents) {
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
}
