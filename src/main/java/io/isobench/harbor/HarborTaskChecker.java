package io.isobench.harbor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A deterministic check of one Harbor task folder against Harbor's task format (schema_version 1.4, harbor 0.20.0;
 * docs/harbor.md, "The checker"): what Harbor's own {@code Task.is_valid_dir} and its {@code TaskConfig} model
 * accept, stated as rules. Errors are what Harbor would refuse (task.toml does not parse; a wrong type or enum value;
 * {@code [task].name} outside {@code org/name}; {@code allowed_hosts} without {@code network_mode = "allowlist"};
 * shared mode with {@code [verifier.environment]}; a missing {@code environment/}, {@code instruction.md} or test;
 * an artifact path with {@code ..}). Warnings are what Harbor silently accepts but is likely a mistake: an unknown key
 * (Harbor drops it), a deprecated key. Every message is one line naming the file and the key.
 */
public final class HarborTaskChecker {

    /** Harbor's {@code constants.ORG_NAME_PATTERN}. */
    public static final Pattern ORG_NAME = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9._-]*/[a-zA-Z0-9][a-zA-Z0-9._-]*$");
    private static final Pattern SERVICE = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9_.-]*$");
    private static final Pattern TOPOLOGY = Pattern.compile("^[1-9]\\d*(x[1-9]\\d*)+$");
    private static final Set<String> NETWORK_MODES = Set.of("no-network", "public", "allowlist");

    /**
     * What the check found.
     *
     * @param errors   what Harbor would refuse, one line each ({@code FILE: KEY: why})
     * @param warnings what Harbor accepts but ignores or deprecates
     */
    public record Report(List<String> errors, List<String> warnings) {
        public Report {
            errors = List.copyOf(errors);
            warnings = List.copyOf(warnings);
        }

        public boolean ok() {
            return errors.isEmpty();
        }
    }

    private final List<String> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    private HarborTaskChecker() {
    }

    /** Checks the task folder {@code dir}. */
    public static Report check(Path dir) {
        HarborTaskChecker c = new HarborTaskChecker();
        c.run(dir);
        return new Report(c.errors, c.warnings);
    }

    /**
     * Checks a {@code reward.json} text: a flat JSON object whose values are all numbers (Harbor reads it as
     * {@code dict[str, float | int]}); the errors, empty when it is one.
     */
    public static List<String> checkRewardJson(String json) {
        List<String> out = new ArrayList<>();
        JsonNode n;
        try {
            n = new ObjectMapper().readTree(json);
        } catch (IOException e) {
            return List.of("reward.json: not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (n == null || !n.isObject()) {
            return List.of("reward.json: not a JSON object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isNumber()) {
                out.add("reward.json: " + e.getKey() + ": " + e.getValue().getNodeType().name().toLowerCase()
                        + " (Harbor takes numbers only)");
            }
        }
        return out;
    }

    private void run(Path dir) {
        Path toml = dir.resolve("task.toml");
        if (!Files.isRegularFile(toml)) {
            errors.add("task.toml: missing (every Harbor task has one)");
            return;
        }
        Map<String, Object> doc;
        try {
            doc = Toml.parse(Files.readString(toml));
        } catch (Toml.TomlError e) {
            errors.add("task.toml: " + e.getMessage());
            return;
        } catch (IOException e) {
            errors.add("task.toml: unreadable: " + e.getMessage());
            return;
        }
        Config c = config(doc);
        if (!Files.isDirectory(dir.resolve("environment"))) {
            err("environment/", "", "missing (Harbor requires the folder)");
        } else if (c.dockerImage == null && !Files.isRegularFile(dir.resolve("environment/Dockerfile"))
                && !Files.isRegularFile(dir.resolve("environment/docker-compose.yaml"))) {
            warn("environment/", "Dockerfile", "neither environment/Dockerfile, environment/docker-compose.yaml"
                    + " nor [environment].docker_image: the docker provider cannot start it");
        }
        String script = c.windows ? "test.bat" : "test.sh";
        if (c.steps != null) {
            for (String step : c.steps) {
                if (!Files.isRegularFile(dir.resolve("steps").resolve(step).resolve("instruction.md"))) {
                    err("steps/" + step + "/instruction.md", "", "missing (each [[steps]] entry has one)");
                }
                if (!c.separate && !Files.isRegularFile(dir.resolve("steps").resolve(step).resolve("tests")
                        .resolve(script)) && !Files.isRegularFile(dir.resolve("tests").resolve(script))) {
                    err("steps/" + step + "/tests/" + script, "", "missing (the step's test, or tests/" + script
                            + ")");
                }
            }
            return;
        }
        if (!Files.isRegularFile(dir.resolve("instruction.md"))) {
            err("instruction.md", "", "missing (the agent's instruction)");
        }
        if (!c.separate) {
            if (!Files.isRegularFile(dir.resolve("tests").resolve(script))) {
                err("tests/" + script, "", "missing (the verifier runs it; shared verifier mode)");
            }
        } else if (c.verifierImage == null) {
            Path df = dir.resolve("tests/Dockerfile");
            if (!Files.isRegularFile(df)) {
                err("tests/Dockerfile", "", "missing (separate verifier mode builds its image from tests/, or"
                        + " [verifier.environment].docker_image names one)");
            } else {
                try {
                    if (!Files.readString(df).contains("/tests/" + script)) {
                        err("tests/Dockerfile", "", "does not put the test at /tests/" + script
                                + " (Harbor runs it there and does not upload tests/ in separate mode)");
                    }
                } catch (IOException e) {
                    err("tests/Dockerfile", "", "unreadable: " + e.getMessage());
                }
            }
        }
    }

    /** What the file checks need from task.toml. */
    private static final class Config {
        boolean separate;
        boolean windows;
        String dockerImage;
        String verifierImage;
        List<String> steps;
    }

    private Config config(Map<String, Object> doc) {
        Config c = new Config();
        known(doc, "", Set.of("schema_version", "version", "task", "metadata", "verifier", "agent", "environment",
                "solution", "source", "multi_step_reward_strategy", "steps", "artifacts"));
        if (doc.containsKey("version") && !doc.containsKey("schema_version")) {
            warn("task.toml", "version", "legacy name of schema_version (Harbor renames it)");
        }
        string(doc, "", "schema_version");
        string(doc, "", "source");
        oneOf(doc, "", "multi_step_reward_strategy", Set.of("mean", "final"));
        Map<String, Object> task = table(doc, "", "task");
        if (task != null) {
            known(task, "task", Set.of("name", "version", "description", "authors", "keywords"));
            Object name = task.get("name");
            if (name == null) {
                err("task.toml", "[task].name", "missing (required when [task] is present)");
            } else if (!(name instanceof String n) || !ORG_NAME.matcher(n).matches() || n.contains("..")) {
                err("task.toml", "[task].name", "'" + name + "' is not org/name (pattern " + ORG_NAME.pattern()
                        + ", no '..')");
            }
            if (task.get("version") instanceof String v && v.isEmpty()) {
                err("task.toml", "[task].version", "empty (at least one character)");
            }
            string(task, "task", "version");
            string(task, "task", "description");
            stringList(task, "task", "keywords");
            for (Map<String, Object> a : tables(task, "task", "authors")) {
                known(a, "task.authors[]", Set.of("name", "email"));
                require(a, "task.authors[]", "name");
                string(a, "task.authors[]", "name");
                string(a, "task.authors[]", "email");
            }
        }
        table(doc, "", "metadata");
        Map<String, Object> agent = table(doc, "", "agent");
        if (agent != null) {
            known(agent, "agent", Set.of("timeout_sec", "user", "network_mode", "allowed_hosts"));
            number(agent, "agent", "timeout_sec");
            user(agent, "agent");
            network(agent, "agent", false);
        }
        Map<String, Object> env = table(doc, "", "environment");
        if (env != null) {
            environment(env, "environment");
            c.dockerImage = env.get("docker_image") instanceof String s ? s : null;
            c.windows = env.get("os") instanceof String os && os.equalsIgnoreCase("windows");
        }
        Map<String, Object> solution = table(doc, "", "solution");
        if (solution != null) {
            known(solution, "solution", Set.of("env"));
            stringTable(solution, "solution", "env");
        }
        Map<String, Object> verifier = table(doc, "", "verifier");
        if (verifier != null) {
            c.separate = verifier(verifier, "verifier");
            Map<String, Object> ve = verifier.get("environment") instanceof Map<?, ?> m ? cast(m) : null;
            c.verifierImage = ve != null && ve.get("docker_image") instanceof String s ? s : null;
        }
        artifacts(doc, "");
        if (doc.containsKey("steps")) {
            c.steps = new ArrayList<>();
            for (Map<String, Object> st : tables(doc, "", "steps")) {
                known(st, "steps[]", Set.of("name", "agent", "verifier", "min_reward", "healthcheck", "artifacts"));
                require(st, "steps[]", "name");
                if (st.get("name") instanceof String n) {
                    c.steps.add(n);
                }
                if (st.get("verifier") instanceof Map<?, ?> v && verifier(cast(v), "steps[].verifier")) {
                    c.separate = true;
                }
                artifacts(st, "steps[]");
            }
        }
        return c;
    }

    /** Checks a [verifier] table; whether it runs in a separate environment. */
    private boolean verifier(Map<String, Object> v, String at) {
        known(v, at, Set.of("timeout_sec", "env", "user", "environment_mode", "environment", "collect",
                "network_mode", "allowed_hosts"));
        number(v, at, "timeout_sec");
        stringTable(v, at, "env");
        user(v, at);
        network(v, at, false);
        String mode = oneOf(v, at, "environment_mode", Set.of("shared", "separate"));
        Map<String, Object> e = table(v, at, "environment");
        if (e != null) {
            environment(e, at + ".environment");
        }
        if ("shared".equals(mode) && e != null) {
            err("task.toml", "[" + at + "].environment_mode", "'shared' with [" + at + ".environment] (Harbor"
                    + " refuses it: omit the environment or set 'separate')");
        }
        for (Map<String, Object> h : tables(v, at, "collect")) {
            known(h, at + ".collect[]", Set.of("command", "service", "timeout_sec", "user"));
            require(h, at + ".collect[]", "command");
            string(h, at + ".collect[]", "command");
            service(h, at + ".collect[]");
            number(h, at + ".collect[]", "timeout_sec");
            user(h, at + ".collect[]");
        }
        return "separate".equals(mode) || mode == null && e != null;
    }

    private void environment(Map<String, Object> e, String at) {
        known(e, at, Set.of("build_timeout_sec", "docker_image", "os", "cpus", "memory_mb", "storage_mb", "gpus",
                "gpu_types", "tpu", "mcp_servers", "env", "skills_dir", "healthcheck", "workdir", "allow_internet",
                "memory", "storage", "network_mode", "allowed_hosts"));
        number(e, at, "build_timeout_sec");
        string(e, at, "docker_image");
        if (e.get("os") instanceof String os) {
            if (!Set.of("linux", "windows").contains(os.toLowerCase())) {
                err("task.toml", "[" + at + "].os", "'" + os + "' (linux or windows)");
            }
        } else {
            string(e, at, "os");
        }
        for (String k : List.of("cpus", "memory_mb", "storage_mb", "gpus")) {
            integer(e, at, k);
        }
        stringList(e, at, "gpu_types");
        Map<String, Object> tpu = table(e, at, "tpu");
        if (tpu != null) {
            known(tpu, at + ".tpu", Set.of("type", "topology"));
            require(tpu, at + ".tpu", "type");
            require(tpu, at + ".tpu", "topology");
            if (tpu.get("topology") instanceof String t && !TOPOLOGY.matcher(t.strip()).matches()) {
                err("task.toml", "[" + at + ".tpu].topology", "'" + t + "' (NxM or NxMxK, positive integers)");
            }
        }
        for (Map<String, Object> m : tables(e, at, "mcp_servers")) {
            known(m, at + ".mcp_servers[]", Set.of("name", "transport", "url", "command", "args", "headers", "env"));
            require(m, at + ".mcp_servers[]", "name");
            Object t = m.getOrDefault("transport", "sse");
            String tr = "http".equals(t) ? "streamable-http" : String.valueOf(t);
            if (!Set.of("sse", "streamable-http", "stdio").contains(tr)) {
                err("task.toml", "[" + at + ".mcp_servers].transport", "'" + t + "' (sse, streamable-http or stdio)");
            } else if (!tr.equals("stdio") && !(m.get("url") instanceof String)) {
                err("task.toml", "[" + at + ".mcp_servers].url", "missing (required for transport " + tr + ")");
            } else if (tr.equals("stdio") && !(m.get("command") instanceof String)) {
                err("task.toml", "[" + at + ".mcp_servers].command", "missing (required for transport stdio)");
            }
        }
        stringTable(e, at, "env");
        string(e, at, "skills_dir");
        string(e, at, "workdir");
        Map<String, Object> hc = table(e, at, "healthcheck");
        if (hc != null) {
            known(hc, at + ".healthcheck", Set.of("command", "interval_sec", "timeout_sec", "start_period_sec",
                    "start_interval_sec", "retries"));
            require(hc, at + ".healthcheck", "command");
            for (String k : List.of("interval_sec", "timeout_sec", "start_period_sec", "start_interval_sec")) {
                number(hc, at + ".healthcheck", k);
            }
            integer(hc, at + ".healthcheck", "retries");
        }
        for (String k : List.of("allow_internet", "memory", "storage")) {
            if (e.containsKey(k)) {
                warn("task.toml", "[" + at + "]." + k, "deprecated (Harbor migrates it: use "
                        + (k.equals("allow_internet") ? "network_mode" : k + "_mb") + ")");
            }
        }
        network(e, at, true);
    }

    private void network(Map<String, Object> t, String at, boolean baseline) {
        String mode = oneOf(t, at, "network_mode", NETWORK_MODES);
        Object hosts = t.get("allowed_hosts");
        if (hosts == null) {
            return;
        }
        stringList(t, at, "allowed_hosts");
        boolean empty = hosts instanceof List<?> l && l.isEmpty();
        String effective = mode != null ? mode : baseline ? "public" : null;
        if (!"allowlist".equals(effective) && !(baseline && empty)) {
            err("task.toml", "[" + at + "].allowed_hosts", "set without network_mode = \"allowlist\" (Harbor"
                    + " refuses it)");
        }
        if (hosts instanceof List<?> l) {
            for (Object h : l) {
                if (h instanceof String s && (s.contains("://") || s.contains("@") || s.matches(".*:\\d+$")
                        && !s.contains("::"))) {
                    err("task.toml", "[" + at + "].allowed_hosts", "'" + s + "' (hostnames, IP addresses or CIDR"
                            + " ranges, not URLs or ports)");
                }
            }
        }
    }

    private void artifacts(Map<String, Object> t, String at) {
        Object a = t.get("artifacts");
        if (a == null) {
            return;
        }
        String key = at.isEmpty() ? "artifacts" : "[" + at + "].artifacts";
        if (!(a instanceof List<?> l)) {
            err("task.toml", key, "not an array");
            return;
        }
        for (Object o : l) {
            if (o instanceof String s) {
                source(key, s, null);
            } else if (o instanceof Map<?, ?> m) {
                Map<String, Object> art = cast(m);
                known(art, key.replace("[", "").replace("]", "") + "[]", Set.of("source", "destination",
                        "exclude", "service"));
                if (!(art.get("source") instanceof String s)) {
                    err("task.toml", key + "[].source", "missing or not a string");
                    continue;
                }
                String service = art.get("service") instanceof String sv ? sv : null;
                source(key, s, service);
                stringList(art, key + "[]", "exclude");
                service(art, key + "[]");
                if (art.get("destination") instanceof String d && !d.isEmpty()) {
                    if (d.startsWith("/") || d.contains("\\") || List.of(d.split("/")).contains("..")
                            || d.replaceAll("/+$", "").equals("manifest.json")) {
                        err("task.toml", key + "[].destination", "'" + d + "' (a relative path with '/', no '..',"
                                + " not manifest.json)");
                    }
                }
            } else {
                err("task.toml", key + "[]", "neither a path string nor a table");
            }
        }
    }

    private void source(String key, String s, String service) {
        if (List.of(s.split("/")).contains("..")) {
            err("task.toml", key + "[].source", "'" + s + "' contains '..'");
        }
        if (service != null && !service.equals("main") && !s.startsWith("/")) {
            err("task.toml", key + "[].source", "'" + s + "' must be absolute for service " + service);
        }
    }

    private void service(Map<String, Object> t, String at) {
        if (t.get("service") instanceof String s && !SERVICE.matcher(s.strip()).matches()) {
            err("task.toml", "[" + at + "].service", "'" + s + "' is not a compose service name");
        } else {
            string(t, at, "service");
        }
    }

    private void user(Map<String, Object> t, String at) {
        Object u = t.get("user");
        if (u != null && !(u instanceof String) && !(u instanceof Long)) {
            err("task.toml", key(at, "user"), "a name or a uid");
        }
    }

    private void known(Map<String, Object> t, String at, Set<String> keys) {
        for (String k : t.keySet()) {
            if (!keys.contains(k)) {
                warn("task.toml", key(at, k), "unknown key (Harbor ignores it: a typo?)");
            }
        }
    }

    private void require(Map<String, Object> t, String at, String k) {
        if (!t.containsKey(k)) {
            err("task.toml", key(at, k), "missing (required)");
        }
    }

    private void string(Map<String, Object> t, String at, String k) {
        if (t.containsKey(k) && !(t.get(k) instanceof String)) {
            err("task.toml", key(at, k), "not a string");
        }
    }

    private String oneOf(Map<String, Object> t, String at, String k, Set<String> values) {
        Object v = t.get(k);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s) || !values.contains(s)) {
            err("task.toml", key(at, k), "'" + v + "' (one of " + values.stream().sorted().toList() + ")");
            return null;
        }
        return s;
    }

    private void integer(Map<String, Object> t, String at, String k) {
        if (t.containsKey(k) && !(t.get(k) instanceof Long)) {
            err("task.toml", key(at, k), "not an integer");
        }
    }

    private void number(Map<String, Object> t, String at, String k) {
        if (t.containsKey(k) && !(t.get(k) instanceof Long) && !(t.get(k) instanceof Double)) {
            err("task.toml", key(at, k), "not a number");
        }
    }

    private void stringList(Map<String, Object> t, String at, String k) {
        Object v = t.get(k);
        if (v != null && (!(v instanceof List<?> l) || !l.stream().allMatch(String.class::isInstance))) {
            err("task.toml", key(at, k), "not an array of strings");
        }
    }

    private void stringTable(Map<String, Object> t, String at, String k) {
        Object v = t.get(k);
        if (v != null && (!(v instanceof Map<?, ?> m) || !m.values().stream().allMatch(String.class::isInstance))) {
            err("task.toml", key(at, k), "not a table of strings");
        }
    }

    private Map<String, Object> table(Map<String, Object> t, String at, String k) {
        Object v = t.get(k);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map<?, ?> m)) {
            err("task.toml", key(at, k), "not a table");
            return null;
        }
        return cast(m);
    }

    private List<Map<String, Object>> tables(Map<String, Object> t, String at, String k) {
        Object v = t.get(k);
        if (v == null) {
            return List.of();
        }
        List<Map<String, Object>> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> m) {
                    out.add(cast(m));
                } else {
                    err("task.toml", key(at, k), "an entry is not a table");
                }
            }
        } else {
            err("task.toml", key(at, k), "not an array of tables");
        }
        return out;
    }

    private static String key(String at, String k) {
        return at.isEmpty() ? k : "[" + at + "]." + k;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<?, ?> m) {
        return (Map<String, Object>) m;
    }

    private void err(String file, String key, String why) {
        errors.add(file + ": " + (key.isEmpty() ? "" : key + ": ") + why);
    }

    private void warn(String file, String key, String why) {
        warnings.add(file + ": " + key + ": " + why);
    }
}
