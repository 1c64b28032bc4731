package io.isobench.report;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
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
import java.util.stream.Stream;

/** Checks on a written HTML report folder, shared by the unit test and the browser test. */
final class HtmlSite {

    private HtmlSite() {
    }

    /** Every page parsed as XML (fails on a page that is not well-formed). */
    static Map<String, Document> parseAll(Path dir) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(false);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setFeature("http://xml.org/sax/features/external-general-entities", false);
        DocumentBuilder b = f.newDocumentBuilder();
        b.setErrorHandler(null);
        Map<String, Document> docs = new LinkedHashMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(x -> x.toString().endsWith(".html")).sorted().toList()) {
                try {
                    docs.put(p.getFileName().toString(), b.parse(p.toFile()));
                } catch (Exception e) {
                    throw new AssertionError(p + " is not well-formed: " + e.getMessage(), e);
                }
            }
        }
        return docs;
    }

    /** Broken links: "page -> href (why)"; every href must be a local file (and anchor) of the site. */
    static List<String> brokenLinks(Path dir, Map<String, Document> docs) throws IOException {
        Map<String, Set<String>> ids = new LinkedHashMap<>();
        for (Map.Entry<String, Document> e : docs.entrySet()) {
            Set<String> s = new HashSet<>();
            NodeList all = e.getValue().getElementsByTagName("*");
            for (int i = 0; i < all.getLength(); i++) {
                String id = ((Element) all.item(i)).getAttribute("id");
                if (!id.isEmpty()) {
                    s.add(id);
                }
            }
            ids.put(e.getKey(), s);
        }
        List<String> broken = new ArrayList<>();
        for (Map.Entry<String, Document> e : docs.entrySet()) {
            NodeList as = e.getValue().getElementsByTagName("a");
            for (int i = 0; i < as.getLength(); i++) {
                String href = ((Element) as.item(i)).getAttribute("href");
                String where = e.getKey() + " -> " + href;
                if (href.isEmpty() || href.contains(":") || href.startsWith("/")) {
                    broken.add(where + " (not a relative link)");
                    continue;
                }
                String file = href.contains("#") ? href.substring(0, href.indexOf('#')) : href;
                String anchor = href.contains("#") ? href.substring(href.indexOf('#') + 1) : null;
                String target = file.isEmpty() ? e.getKey() : file;
                if (!Files.isRegularFile(dir.resolve(target))) {
                    broken.add(where + " (no file)");
                } else if (anchor != null && (!ids.containsKey(target) || !ids.get(target).contains(anchor))) {
                    broken.add(where + " (no anchor)");
                }
            }
        }
        return broken;
    }

    /** Text of the cell with {@code data-key=key} in the row {@code data-arm=arm} of a page (raw or dumped DOM). */
    static String cell(String html, String arm, String key) {
        Matcher row = Pattern.compile("<tr data-arm=\"" + Pattern.quote(arm) + "\">(.*?)</tr>", Pattern.DOTALL)
                .matcher(html);
        if (!row.find()) {
            throw new AssertionError("no row for arm " + arm);
        }
        Matcher c = Pattern.compile("data-key=\"" + Pattern.quote(key) + "\">(.*?)</td>", Pattern.DOTALL)
                .matcher(row.group(1));
        if (!c.find()) {
            throw new AssertionError("no cell " + key + " for arm " + arm);
        }
        return text(c.group(1));
    }

    /** Visible text of an HTML fragment (tags dropped, the five XML entities decoded, spaces collapsed). */
    static String text(String fragment) {
        return fragment.replaceAll("<[^>]*>", "").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"")
                .replace("&#39;", "'").replace("&amp;", "&").replaceAll("\\s+", " ").strip();
    }

    /** Markdown task-table rows of a native task: arm → cells. */
    static Map<String, List<String>> markdownTaskRows(String md, String taskId) {
        int start = md.indexOf("### Task " + taskId + " (");
        if (start < 0) {
            throw new AssertionError("no task " + taskId + " in the Markdown report");
        }
        int end = md.indexOf("\n### ", start + 5);
        Map<String, List<String>> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : md.substring(start, end < 0 ? md.length() : end).split("\n")) {
            if (line.startsWith("|")) {
                inTable = true;
                if (line.startsWith("| ") && !line.startsWith("| arm ")) {
                    List<String> cells = mdCells(line);
                    rows.put(cells.get(0), cells);
                }
            } else if (inTable) {
                break; // the arm table is the section's first table (the correctness table follows it)
            }
        }
        return rows;
    }

    /**
     * Cells of one Markdown table row as the report writes it ({@code | a | b |}, pipes inside cells escaped as
     * {@code \|}): how the tests read the Markdown report.
     */
    static List<String> mdCells(String line) {
        String s = line.strip();
        if (s.startsWith("|")) {
            s = s.substring(1);
        }
        if (s.endsWith("|") && !s.endsWith("\\|")) {
            s = s.substring(0, s.length() - 1);
        }
        List<String> cells = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length() && s.charAt(i + 1) == '|') {
                cur.append('|');
                i++;
            } else if (c == '|') {
                cells.add(cur.toString().strip());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        cells.add(cur.toString().strip());
        return cells;
    }
}
