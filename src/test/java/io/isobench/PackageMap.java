package io.isobench;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The package map of docs/architecture.md, read from its table, checked on compiled classes: a class of package
 * {@code io.isobench.P} may depend on its own package, the root package and the packages in P's "may import" cell;
 * {@code cli}'s cell says "any package". The doc is the rule: a new arrow is added by writing it in the doc.
 *
 * @param allowed per package (the first name segment under {@code io.isobench}; "" is the root), the packages it may
 *                import; null for "any package"
 */
public record PackageMap(Map<String, Set<String>> allowed) {
    static final String BASE = "io.isobench";
    private static final Pattern ROW = Pattern.compile("^\\|\\s*(\\*\\(root\\)\\*|`([a-z]+)`)\\s*\\|.*\\|\\s*([^|]*)\\|\\s*$");
    private static final Pattern WORD = Pattern.compile("[a-z]+");

    /** Reads the table of {@code doc} (rows {@code | `package` | owns | may import |}). */
    public static PackageMap read(Path doc) throws IOException {
        Map<String, Set<String>> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(doc)) {
            Matcher m = ROW.matcher(line);
            if (!m.matches() || line.startsWith("| package")) {
                continue;
            }
            String pkg = m.group(2) == null ? "" : m.group(2);
            String cell = m.group(3).trim();
            rows.put(pkg, cell.contains("any package") ? null : words(cell));
        }
        if (rows.isEmpty()) {
            throw new IllegalStateException(doc + ": no package table (| `package` | owns | may import |)");
        }
        // a cell names only packages of the table ("loadgen (flag names only)" is loadgen)
        for (Set<String> s : rows.values()) {
            if (s != null) {
                s.retainAll(rows.keySet());
            }
        }
        return new PackageMap(rows);
    }

    private static Set<String> words(String cell) {
        Set<String> out = new LinkedHashSet<>();
        Matcher w = WORD.matcher(cell.replaceAll("\\([^)]*\\)", ""));
        while (w.find()) {
            out.add(w.group());
        }
        return out;
    }

    /** The stage package of a class: its first name segment under {@code io.isobench} ("" for the root). */
    static String stageOf(String className) {
        if (!className.startsWith(BASE + ".")) {
            return null;
        }
        String rest = className.substring(BASE.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? "" : rest.substring(0, dot);
    }

    /** Every dependency that breaks the map, one line each ({@code origin -> target (pkg -> pkg)}), sorted. */
    public List<String> violations(JavaClasses classes) {
        Set<String> out = new TreeSet<>();
        for (JavaClass c : classes) {
            String from = stageOf(c.getName());
            if (from == null) {
                continue;
            }
            if (!allowed.containsKey(from)) {
                out.add(c.getName() + ": package '" + from + "' has no row in docs/architecture.md");
                continue;
            }
            Set<String> may = allowed.get(from);
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = stageOf(d.getTargetClass().getName());
                if (to == null || to.equals(from) || to.isEmpty() || (may != null && may.contains(to)) || may == null) {
                    continue;
                }
                out.add(c.getName() + " -> " + d.getTargetClass().getName() + " (" + from + " -> " + to + ")");
            }
        }
        return List.copyOf(out);
    }
}
