package io.isobench.task;

import io.isobench.IsobenchException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The suite loader's shared state and node helpers: the file, its folder and the list of problems, and readers
 * of mappings, strings, numbers and lists that report every problem as {@code file:line: field: problem (fix)}.
 * The section readers ({@link EngineSection}, {@link TaskSection}, {@link AgentSection}) extend it and share one
 * problem list.
 */
class SuiteNodes {

    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    static final Pattern REF = Pattern.compile("[^\\s~^:?*\\[\\\\]+");
    static final Pattern TEMPLATE_FIELD = Pattern.compile("\\{[^{}]*}");

    final String fileLabel;
    final Path baseDir;
    final boolean checkPaths;
    private final List<String> problems;

    SuiteNodes(String fileLabel, Path baseDir, boolean checkPaths) {
        this.fileLabel = fileLabel;
        this.baseDir = baseDir;
        this.checkPaths = checkPaths;
        this.problems = new ArrayList<>();
    }

    /** A reader of another section of the same file: it reports into the same problem list. */
    SuiteNodes(SuiteNodes shared) {
        this.fileLabel = shared.fileLabel;
        this.baseDir = shared.baseDir;
        this.checkPaths = shared.checkPaths;
        this.problems = shared.problems;
    }

    boolean hasProblems() {
        return !problems.isEmpty();
    }

    IsobenchException.BadInput failure() {
        String msg = problems.size() == 1 ? problems.get(0)
                : problems.size() + " problems in the suite:\n  " + String.join("\n  ", problems);
        return new IsobenchException.BadInput(msg);
    }

    /** A list of strings (a single string counts as a one-element list); checked against {@code known} if given. */
    List<String> names(NodeTuple t, String field, List<String> known, boolean allowEmpty) {
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
                String low = name.toLowerCase(Locale.ROOT);
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

    Boolean bool(NodeTuple t, String field) {
        String s = string(t, field, true);
        if (s == null) {
            return null;
        }
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> {
                problem(t.getValueNode(), field, "'" + s + "' is not true or false (fix: true or false)");
                yield null;
            }
        };
    }

    /**
     * A command as an argv list ({@code [python3, -m, compileall, -q, .]}); a plain string is refused (isobench runs
     * commands without a shell). Null when absent or invalid; an empty list only when {@code emptyAllowed}.
     */
    List<String> argv(NodeTuple t, String field, boolean emptyAllowed) {
        return argv(t, field, emptyAllowed, "[python3, -m, compileall, -q, .]");
    }

    /** An argv list (never a shell string); {@code example} goes into the fix of a problem. */
    List<String> argv(NodeTuple t, String field, boolean emptyAllowed, String example) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        String fix = " (fix: an argv list run without a shell, e.g. " + example
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

    /** A list of strings; empty when absent (problems reported). */
    List<String> stringList(NodeTuple t, String field) {
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

    // --- node helpers ---

    /** The mapping's entries by key, with unknown and duplicate keys reported; null when the node is not a mapping. */
    Map<String, NodeTuple> mapping(Node node, String field, List<String> known) {
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

    String string(NodeTuple t, String field, boolean required) {
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

    String ref(Map<String, NodeTuple> m, String key, String field, boolean required) {
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

    Integer integer(NodeTuple t, String field, long min, long max) {
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

    Double decimal(NodeTuple t, String field, double min, double max) {
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

    static boolean isNull(Node n) {
        return n instanceof ScalarNode s && (Tag.NULL.equals(s.getTag()));
    }

    static String scalarText(Node n) {
        return n instanceof ScalarNode s ? s.getValue() : "<" + n.getNodeId() + ">";
    }

    static int line(Node n) {
        return n == null || n.getStartMark() == null ? 1 : n.getStartMark().getLine() + 1;
    }

    Path resolve(String path) {
        Path p = Path.of(path);
        return (p.isAbsolute() ? p : baseDir.resolve(p)).normalize();
    }

    void problem(Node node, String field, String message) {
        problems.add(fileLabel + ":" + line(node) + ": " + field + ": " + message);
    }
}
