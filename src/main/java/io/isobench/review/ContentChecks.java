package io.isobench.review;

import io.isobench.review.PatchFile.Hunk;
import io.isobench.review.PatchFile.Kind;
import io.isobench.review.PatchFile.Line;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checks that read hunk contents: WORK_SHRINKING_DEFAULT, PROMPT_KEYED_CACHE, DISABLED_CODE_PATH and (in
 * {@link SideEffects}) IMPORT_TIME_SIDE_EFFECT and WRITE_OUTSIDE_TREE. Each
 * looks only at added lines, compared with the removed lines of the same change block (a run of consecutive
 * removed/added lines) or with the new side of the hunk. The rules, and why they are narrow, are in
 * docs/patch-review.md; DISABLED_CODE_PATH lives in {@link DisabledCodePath}.
 */
final class ContentChecks {

    /** A finding of a content check: the check, the reason, and the evidence (the whole hunk). */
    record Hit(Check check, String reason, String evidence) {
    }

    enum Lang { PYTHON, C_LIKE, CONFIG, OTHER }

    /** Work-size settings: lowering one makes each request or the whole benchmark do less work. */
    static final Set<String> WORK_KEYS = Set.of("max_tokens", "max_new_tokens", "max_completion_tokens",
            "batch_size", "max_batch_size", "max_num_seqs", "max_num_batched_tokens", "max_model_len",
            "num_prompts", "output_len", "input_len", "prompt_len", "n", "best_of", "num_generations");
    /** Settings that only count as keyword arguments, fields or flags: as plain variables they mean anything. */
    private static final Set<String> KEYWORD_ONLY = Set.of("n", "best_of");
    static final Set<String> SAMPLING_KEYS = Set.of("temperature", "top_p", "top_k", "min_p", "greedy",
            "do_sample", "use_beam_search", "ignore_eos", "sampling_type");
    private static final Pattern FORCED_SAMPLING = Pattern.compile(
            "^\\s*[A-Za-z_][\\w.]*\\.(temperature|top_p|top_k|min_p|ignore_eos|use_beam_search)\\s*=\\s*"
                    + "(-?[\\d.]+|True|False|true|false)\\s*;?\\s*$");
    private static final Pattern SHRINKING_OP = Pattern.compile("//|/|>>|\\bmin\\s*\\(|-\\s*\\d|\\*\\s*0?\\.\\d");

    private static final Pattern CACHE_DECORATOR = Pattern.compile(
            "^\\s*@\\s*(?:functools\\.)?(?:lru_cache|cache|cached|memoize|memoized)\\b.*");
    private static final Pattern DEF = Pattern.compile("^\\s*(?:async\\s+)?def\\s+\\w+\\s*\\((.*)");
    private static final Pattern CACHE_NAME = Pattern.compile("(?i)\\w*(?:cache|memo)\\w*");
    private static final Pattern IDENT = Pattern.compile("(?<![\\w])([A-Za-z_]\\w*)");
    /** A dict-like container created by an added line: a new mapping looked up by prompt is a cache, whatever its name. */
    private static final Pattern NEW_DICT = Pattern.compile(
            "^\\s*(?:self\\.|cls\\.)?([A-Za-z_]\\w*)\\s*(?::[^=]+)?=\\s*(?:\\{\\s*\\}|dict\\(\\)|OrderedDict\\(\\)|"
                    + "collections\\.OrderedDict\\(\\)|defaultdict\\(|LRUCache\\(|cachetools\\.).*");
    private static final Pattern CACHE_DECL = Pattern.compile(
            "(?i)^\\s*(?:self\\.|cls\\.)?([A-Za-z_]\\w*(?:cache|memo)\\w*)\\s*(?::[^=]+)?=\\s*"
                    + "(?:\\{\\s*\\}|dict\\(|OrderedDict\\(|defaultdict\\(|LRUCache\\(|lru_cache|cachetools|"
                    + "collections\\.OrderedDict\\(|WeakValueDictionary\\().*");
    /** Caches of engine internals keyed on token ids by design (prefix caching, KV blocks, compiled graphs). */
    private static final Pattern LEGIT_CACHE_NAME = Pattern.compile(
            "(?i).*(block|prefix|kv|swap|graph|kernel|compile|dtype|shape|config|attn|lora|mm_|encoder).*");

    private static final Pattern DOTTED = Pattern.compile("[A-Za-z_]\\w*(?:\\s*\\.\\s*[A-Za-z_]\\w*)*");
    private static final Pattern WORD = Pattern.compile("[A-Za-z_]\\w*");
    private static final Pattern GET_CALL =
            Pattern.compile("\\.(?:get|setdefault|pop|__getitem__|__contains__)\\s*\\(");
    private static final Pattern IN_EXPR =
            Pattern.compile("([\\w.()\\[\\]]+)\\s+(?:not\\s+)?in\\s+(?:self\\.|cls\\.)?$");

    private ContentChecks() {
    }

    static Lang lang(String path) {
        String p = path.toLowerCase(Locale.ROOT);
        if (p.endsWith(".py") || p.endsWith(".pyi")) {
            return Lang.PYTHON;
        }
        if (p.matches(".*\\.(c|cc|cpp|cxx|cu|cuh|h|hh|hpp|hxx|rs|go|java)$")) {
            return Lang.C_LIKE;
        }
        if (p.matches(".*\\.(ya?ml|json|toml|cfg|ini|sh|env)$") || p.endsWith("dockerfile")) {
            return Lang.CONFIG;
        }
        return Lang.OTHER;
    }

    /**
     * The content checks of one file, fed one hunk at a time (a patch is streamed: only the hunk at hand is held).
     * PROMPT_KEYED_CACHE also counts a dict that any added line of the file creates as a cache; lookups of such names
     * wait until the file's end, when every dict of the file is known. Hits come out in hunk order.
     */
    static final class Scan {
        private final Lang lang;
        private final boolean off;
        private final Set<String> newDicts = new HashSet<>();
        /** Per hunk with something to report: its hits, in the order the checks run. */
        private final List<Pending> pending = new ArrayList<>();

        private record Pending(String evidence, List<Hit> work, List<String[]> cacheReasons, Hit disabled,
                               List<Hit> effects) {
        }

        Scan(PatchFile file) {
            this.lang = lang(file.path());
            this.off = file.binary() || lang == Lang.OTHER;
        }

        void hunk(Hunk h) {
            if (off) {
                return;
            }
            for (Line l : h.lines()) {
                Matcher d = NEW_DICT.matcher(l.text());
                if (l.kind() == Kind.ADDED && d.matches()) {
                    newDicts.add(d.group(1));
                }
            }
            List<Hit> work = new ArrayList<>();
            workShrinking(h, lang, work);
            List<String[]> cache = List.of();
            Hit disabled = null;
            if (lang != Lang.CONFIG) {
                cache = promptKeyedCache(h, lang);
                List<Hit> d = new ArrayList<>();
                DisabledCodePath.disabledCodePath(h, lang, d);
                disabled = d.isEmpty() ? null : d.get(0);
            }
            List<Hit> effects = new ArrayList<>();
            SideEffects.scan(h, lang, effects);
            if (!work.isEmpty() || !cache.isEmpty() || disabled != null || !effects.isEmpty()) {
                pending.add(new Pending(h.text(), work, cache, disabled, effects));
            }
        }

        List<Hit> finish() {
            List<Hit> hits = new ArrayList<>();
            for (Pending p : pending) {
                for (Hit w : p.work()) {
                    hits.add(new Hit(w.check(), w.reason(), p.evidence()));
                }
                List<String> reasons = new ArrayList<>();
                for (String[] r : p.cacheReasons()) {
                    if (r[1] == null || newDicts.contains(r[1])) {
                        reasons.add(r[0]);
                    }
                }
                if (!reasons.isEmpty()) {
                    hits.add(new Hit(Check.PROMPT_KEYED_CACHE, String.join("; ", reasons.stream().distinct().toList()),
                            p.evidence()));
                }
                if (p.disabled() != null) {
                    hits.add(new Hit(Check.DISABLED_CODE_PATH, p.disabled().reason(), p.evidence()));
                }
                for (Hit e : p.effects()) {
                    hits.add(new Hit(e.check(), e.reason(), p.evidence()));
                }
            }
            pending.clear();
            return hits;
        }
    }

    // ---- WORK_SHRINKING_DEFAULT ---------------------------------------------------------------------------

    private record Occurrence(String key, String value, boolean keywordArg) {
    }

    private static void workShrinking(Hunk h, Lang lang, List<Hit> hits) {
        boolean cLike = lang == Lang.C_LIKE;
        List<String> flags = argparseFlags(h);
        for (List<Integer> block : changeBlocks(h)) {
            List<Occurrence> removed = new ArrayList<>();
            List<Occurrence> added = new ArrayList<>();
            for (int idx : block) {
                Line l = h.lines().get(idx);
                if (isComment(l.text(), lang)) {
                    continue;
                }
                for (Assignments.Pair p : Assignments.on(l.text(), flags.get(idx), cLike)) {
                    String key = canonicalKey(p.name());
                    if (key == null || (KEYWORD_ONLY.contains(key) && !p.keywordArg() && flags.get(idx) == null
                            && !l.text().strip().startsWith(p.name()))) {
                        continue;
                    }
                    (l.kind() == Kind.REMOVED ? removed : added).add(new Occurrence(key, p.value(), p.keywordArg()));
                }
            }
            List<String> seen = new ArrayList<>();
            for (Occurrence a : added) {
                Occurrence r = removed.stream().filter(o -> o.key().equals(a.key())).findFirst().orElse(null);
                String reason = r == null ? null : compare(a.key(), r.value(), a.value());
                if (reason != null && !seen.contains(reason)) {
                    seen.add(reason);
                    hits.add(new Hit(Check.WORK_SHRINKING_DEFAULT, reason, null));
                }
            }
            for (int idx : block) {
                Line l = h.lines().get(idx);
                Matcher m = FORCED_SAMPLING.matcher(Assignments.stripComment(l.text(), cLike));
                if (l.kind() == Kind.ADDED && m.matches()) {
                    String key = m.group(1);
                    boolean paired = removed.stream().anyMatch(o -> o.key().equals(key));
                    if (!paired) {
                        hits.add(new Hit(Check.WORK_SHRINKING_DEFAULT,
                                "forces " + l.text().strip().replaceAll(";$", "") + " on every request", null));
                    }
                }
            }
        }
    }

    /** WORK_KEYS / SAMPLING_KEYS name for an identifier ({@code MAX_NUM_SEQS}, {@code max_tokens}); null if none. */
    private static String canonicalKey(String name) {
        String k = name.toLowerCase(Locale.ROOT).replace('-', '_');
        if (k.startsWith("default_")) {
            k = k.substring("default_".length());
        }
        return WORK_KEYS.contains(k) || SAMPLING_KEYS.contains(k) ? k : null;
    }

    private static String compare(String key, String oldValue, String newValue) {
        String o = oldValue.replaceAll("\\s+", "");
        String n = newValue.replaceAll("\\s+", "");
        if (o.equals(n)) {
            return null;
        }
        if (SAMPLING_KEYS.contains(key)) {
            if (key.equals("ignore_eos") && !isFalse(o) && isFalse(n)) {
                return "turns ignore_eos off (" + oldValue + " -> " + newValue + "): generation may stop early";
            }
            if (key.equals("ignore_eos")) {
                return null;
            }
            return "changes sampling setting " + key + " from " + oldValue + " to " + newValue;
        }
        Double ov = Assignments.number(oldValue);
        Double nv = Assignments.number(newValue);
        if (ov != null && nv != null) {
            return nv < ov ? "lowers " + key + " from " + oldValue + " to " + newValue : null;
        }
        if (ov == null && nv != null) {
            return "replaces " + key + " = " + oldValue + " with the constant " + newValue;
        }
        if (ov == null && n.contains(o) && SHRINKING_OP.matcher(n.replace(o, "")).find()) {
            return "shrinks " + key + ": " + oldValue + " becomes " + newValue;
        }
        return null;
    }

    private static boolean isFalse(String v) {
        return v.equals("False") || v.equals("false") || v.equals("0");
    }

    /** For each hunk line, the argparse flag whose add_argument call it belongs to (within 6 lines), else null. */
    private static List<String> argparseFlags(Hunk h) {
        List<String> out = new ArrayList<>();
        String flag = null;
        int since = 0;
        for (Line l : h.lines()) {
            String f = Assignments.argparseFlag(l.text());
            if (f != null) {
                flag = f;
                since = 0;
            } else if (l.text().contains("add_argument(") || since > 6) {
                flag = null;
            }
            out.add(flag);
            since++;
            if (flag != null && l.text().strip().endsWith(")") && f == null) {
                since = 99; // the call closed on this line
            }
        }
        return out;
    }

    // ---- PROMPT_KEYED_CACHE -------------------------------------------------------------------------------

    /**
     * The hunk's PROMPT_KEYED_CACHE reasons in order, each {@code [reason, name]}: {@code name} null when the reason
     * holds on its own, else the looked-up name, which counts only if the file creates a dict of that name.
     */
    private static List<String[]> promptKeyedCache(Hunk h, Lang lang) {
        List<Line> newSide = newSide(h);
        List<String[]> reasons = new ArrayList<>();
        for (int i = 0; i < newSide.size(); i++) {
            Line l = newSide.get(i);
            if (l.kind() != Kind.ADDED || isComment(l.text(), lang) || isStringLiteral(l.text())) {
                continue;
            }
            String code = Assignments.stripComment(l.text(), lang == Lang.C_LIKE);
            if (lang == Lang.PYTHON && CACHE_DECORATOR.matcher(code).matches()) {
                for (int k = i + 1; k < Math.min(newSide.size(), i + 4); k++) {
                    Matcher d = DEF.matcher(newSide.get(k).text());
                    if (d.find()) {
                        List<String> promptParams = identifiers(d.group(1)).stream()
                                .filter(ContentChecks::promptLike).toList();
                        if (!promptParams.isEmpty()) {
                            reasons.add(new String[] {"memoizes " + newSide.get(k).text().strip() + " on "
                                    + String.join(", ", promptParams) + " (" + code.strip() + ")", null});
                        }
                        break;
                    }
                }
            }
            Matcher decl = CACHE_DECL.matcher(code);
            if (decl.matches()) {
                String name = decl.group(1);
                if (name.toLowerCase(Locale.ROOT).matches(".*(prompt|request|completion|response).*")) {
                    reasons.add(new String[] {"adds cache " + name + " named after prompts/requests", null});
                }
            }
            Matcher m = IDENT.matcher(code);
            while (m.find()) {
                String name = m.group(1);
                String key = cacheKey(code, m.start(), m.end());
                if (key == null || LEGIT_CACHE_NAME.matcher(name).matches()) {
                    continue;
                }
                boolean cacheNamed = CACHE_NAME.matcher(name).matches();
                List<String> promptIds = keyParts(key).stream().filter(ContentChecks::promptLike).toList();
                if (!promptIds.isEmpty()) {
                    reasons.add(new String[] {"looks up " + name + " by " + key.strip(), cacheNamed ? null : name});
                }
            }
        }
        return reasons;
    }

    /** The key expression of {@code NAME[key]}, {@code NAME.get(key...)}, {@code key in NAME}; null otherwise. */
    private static String cacheKey(String code, int start, int end) {
        if (end < code.length() && code.charAt(end) == '[') {
            return bracketBody(code.substring(end), '[', ']');
        }
        if (end < code.length() && code.charAt(end) == '.') {
            Matcher g = GET_CALL.matcher(code).region(end, code.length());
            if (g.lookingAt()) {
                String args = bracketBody(code.substring(g.end() - 1), '(', ')');
                if (args == null) {
                    return null;
                }
                int comma = topLevelComma(args);
                return comma < 0 ? args : args.substring(0, comma);
            }
        }
        if (code.lastIndexOf("in", start) < 0) {
            return null;
        }
        Matcher in = IN_EXPR.matcher(code.substring(0, start));
        if (in.find()) {
            return in.group(1);
        }
        return null;
    }

    private static String bracketBody(String s, char open, char close) {
        int depth = 0;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == open) {
                depth++;
            } else if (c == close && --depth == 0) {
                return s.substring(1, k);
            }
        }
        return null;
    }

    private static int topLevelComma(String s) {
        int depth = 0;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (c == ',' && depth == 0) {
                return k;
            }
        }
        return -1;
    }

    /** The last name of each dotted chain in a key expression: {@code str(request.prompt)} gives str, prompt. */
    private static List<String> keyParts(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = DOTTED.matcher(s);
        while (m.find()) {
            String chain = m.group();
            out.add(chain.substring(chain.lastIndexOf('.') + 1).strip());
        }
        return out;
    }

    private static List<String> identifiers(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = WORD.matcher(s);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    /** Identifiers that carry a request's input: prompts, input/token ids, request text, chat messages. */
    static boolean promptLike(String ident) {
        String i = ident.toLowerCase(Locale.ROOT);
        if (i.contains("prompt") || i.endsWith("input_ids") || i.endsWith("token_ids")) {
            return true;
        }
        return Set.of("inputs", "input_text", "text", "texts", "messages", "request", "req", "query", "queries",
                "request_text").contains(i);
    }

    // ---- shared -------------------------------------------------------------------------------------------

    static boolean isComment(String text, Lang lang) {
        String s = text.strip();
        return switch (lang) {
            case PYTHON, CONFIG -> s.startsWith("#");
            case C_LIKE -> s.startsWith("//") || s.startsWith("/*") || s.startsWith("*");
            case OTHER -> false;
        };
    }

    /** A line that is only (part of) a string literal, e.g. source text embedded in a test or a generator. */
    static boolean isStringLiteral(String text) {
        String s = text.strip();
        return s.startsWith("\"") || s.startsWith("'") || s.matches("^[rbfRBF]{1,2}[\"'].*") || s.startsWith("+ \"");
    }

    static int indent(String text) {
        int n = 0;
        for (int k = 0; k < text.length(); k++) {
            char c = text.charAt(k);
            if (c == ' ') {
                n++;
            } else if (c == '\t') {
                n += 8 - n % 8;
            } else {
                break;
            }
        }
        return n;
    }

    /** Context and added lines: the hunk as it reads after the patch. */
    static List<Line> newSide(Hunk h) {
        return h.lines().stream().filter(l -> l.kind() == Kind.CONTEXT || l.kind() == Kind.ADDED).toList();
    }

    /** Indices of maximal runs of removed/added lines (a change block). */
    static List<List<Integer>> changeBlocks(Hunk h) {
        List<List<Integer>> out = new ArrayList<>();
        List<Integer> cur = new ArrayList<>();
        for (int i = 0; i < h.lines().size(); i++) {
            Kind k = h.lines().get(i).kind();
            if (k == Kind.ADDED || k == Kind.REMOVED) {
                cur.add(i);
            } else if (k == Kind.CONTEXT && !cur.isEmpty()) {
                out.add(cur);
                cur = new ArrayList<>();
            }
        }
        if (!cur.isEmpty()) {
            out.add(cur);
        }
        return out;
    }
}
