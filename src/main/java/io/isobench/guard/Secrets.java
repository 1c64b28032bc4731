package io.isobench.guard;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one redactor (docs/security.md): every text that enters the store or leaves isobench (stdout, stderr, reports,
 * exports, {@code --dry-run}) goes through it. It matches by shape, wherever the shape stands: token formats (HF
 * {@code hf_…}, OpenAI/Anthropic {@code sk-…}, GitHub, GitLab, Slack, AWS, Google), {@code Authorization:} and
 * {@code Bearer} values, URL credentials, the values of secret-named assignments, flags and JSON fields
 * ({@code HF_TOKEN=…}, {@code --api-key …}, {@code "api_key": "…"}) and private-key blocks. Tokens are found
 * after
 * terminal escape codes, glued to a word ({@code tokenhf_…}), split by colour codes and JSON-escaped (the letters
 * or the escape code written as backslash-u escapes): the patterns run on a view of the text with escape sequences
 * removed, backslash-u and percent escapes of printable ASCII and JSON-escaped slashes decoded, and each match
 * replaces the original characters it
 * came from.
 * Idempotent: redacted text redacts to itself.
 */
public final class Secrets {

    /** What a secret value becomes. */
    public static final String MASK = "***";

    /**
     * Names of env entries, flags and fields whose values are secrets: *TOKEN*, *KEY*, *SECRET*, *PASSWORD*, and the
     * words PASS, AUTH and PAT between underscores ({@code DB_PASS}, {@code HF_AUTH}, {@code GH_PAT}; not
     * {@code PATH}, {@code AUTHOR}).
     */
    private static final Pattern SECRET_NAME = Pattern.compile(
            "(?i).*(?:TOKEN(?!IZER|S)|KEY(?!S)|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL).*"
                    + "|(?i)(?:.*_)?(?:PASS|AUTH|PAT)(?:_.*)?");

    /**
     * Assignment names whose value is a secret: a name ending with a secret word ({@code api_key}, {@code hf_token},
     * {@code password}; narrower than {@link #SECRET_NAME}, so {@code cache_key=} and {@code token_ids:} stay), or an
     * upper-case environment name with TOKEN, KEY, SECRET or PASSWORD in it ({@code HF_TOKEN}, {@code MY_KEY}).
     */
    private static final Pattern ASSIGNED_NAME = Pattern.compile("(?i:.*(?:token|secret|passw(?:or)?d|passphrase"
            + "|credentials?|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret"
            + "|apikey))|[A-Z0-9_]*(?:TOKEN(?!IZER|S)|KEY(?!S)|SECRET|PASSWORD|PASSWD)[A-Z0-9_]*");

    /**
     * A value: a run of characters that cannot close a quoted string, a JSON value or a URL parameter; not a JSON
     * literal, a small integer, a decimal number ({@code TOKEN_COST_S = 0.002} in engine code) or an upper-case
     * placeholder ({@code KEY=VALUE}, {@code KEY=VALUE...},
     * {@code --api-key API_KEY} in a usage).
     */
    private static final String VALUE = value("\\d{1,6}|[0-9]*\\.[0-9]+(?:[eE][-+]?[0-9]+)?|");
    /** A password's value: a small number is one too ({@code password=123456}). */
    private static final String PASSWORD_VALUE = value("");
    private static final String QUOTES = "[\"'\\\\]*";
    /** What follows the ':' or '=' of an assignment. */
    private static final Pattern ASSIGNED_VALUE = Pattern.compile("\\s*" + QUOTES + VALUE);
    private static final Pattern ASSIGNED_PASSWORD = Pattern.compile("\\s*" + QUOTES + PASSWORD_VALUE);

    /** {@link #VALUE} with {@code number} ({@code \\d{1,6}|} or empty) among the values that are not secrets. */
    private static String value(String number) {
        // case-sensitive even inside a (?i) pattern: "--api-key abcdefgh" is a secret, "--api-key API_KEY" a usage
        return "(?-i:(?!(?:null|true|false|None|" + number + "[A-Z][A-Z_]*(?:\\.\\.\\.)?)"
                + "(?![^\\s\"'\\\\,;&\\[\\]{}()<>])))"
                + "(?<s>[^\\s\"'\\\\,;&\\[\\]{}()<>`]+)";
    }

    /**
     * Each pattern's group {@code s} is the secret part: it becomes {@link #MASK} (a token keeps its prefix). Every
     * pattern starts at a literal or a rare character, so a scan costs about one comparison per character.
     */
    private static final List<Pattern> PATTERNS = List.of(
            // HF tokens, anywhere (glued to a word too): hf_ + 34 letters and digits
            Pattern.compile("hf_(?<s>[A-Za-z0-9]{20,})"),
            // OpenAI / Anthropic keys at a word start...
            Pattern.compile("sk-(?<![A-Za-z0-9]sk-)(?<s>[A-Za-z0-9_-]{20,})"),
            // ... or glued to a word, when they look random (digits, upper and lower case): "task-…" ids stay
            Pattern.compile("sk-(?<s>(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])"
                    + "[A-Za-z0-9_-]{20,})"),
            Pattern.compile("gh[pousr]_(?<s>[A-Za-z0-9]{30,})"),
            Pattern.compile("github_pat_(?<s>[A-Za-z0-9_]{30,})"),
            Pattern.compile("glpat-(?<s>[A-Za-z0-9_-]{20,})"),
            Pattern.compile("xox[abprs]-(?<s>[A-Za-z0-9-]{10,})"),
            Pattern.compile("AKIA(?<![A-Z0-9]AKIA)(?<s>[A-Z0-9]{16})(?![A-Z0-9])"),
            Pattern.compile("AIza(?<s>[0-9A-Za-z_-]{35})"),
            Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----(?<s>[^\"]*?)-----END"),
            // Authorization headers (any quoting, any scheme) and bearer credentials anywhere
            Pattern.compile("(?i)authorization" + QUOTES + "\\s*[:=]\\s*" + QUOTES
                    + "(?:(?:bearer|basic|token|bot|digest)\\s+)?(?<s>[^\\s\"'\\\\,;]+)"),
            Pattern.compile("(?i)bearer\\s+(?<s>[A-Za-z0-9._~+/=-]{8,})"),
            // credentials in URLs: scheme://user:password@host
            Pattern.compile("://[^/\\s:@\"']+:(?<s>[^@\\s/\"']+)@"),
            // --api-key VALUE, --hf_token=VALUE, --password VALUE, ["--token", "VALUE"]
            Pattern.compile("(?i)-(?<![A-Za-z0-9-]-)-?(?:[a-z][a-z0-9_-]*)?"
                    + "(?:token|api[-_]?key|secret|password|passwd|key)(?![a-z0-9_-])" + QUOTES + "(?:=|\\s+|\\s*,\\s*)" + QUOTES + VALUE));

    /** A needle that starts with this is looked for in the lower-cased text (the pattern ignores case). */
    private static final String LOWER = "\0";

    /**
     * Per pattern, strings one of which must occur for it to match: a text without any skips the regex (an indexOf
     * is many times cheaper than a regex scan, and most text holds no secret at all).
     */
    private static final List<String[]> NEEDLES = List.of(
            new String[] {"hf_"}, new String[] {"sk-"}, new String[] {"sk-"}, new String[] {"gh"},
            new String[] {"github_pat_"}, new String[] {"glpat-"}, new String[] {"xox"}, new String[] {"AKIA"},
            new String[] {"AIza"}, new String[] {"PRIVATE KEY"},
            new String[] {LOWER + "authorization"}, new String[] {LOWER + "bearer"}, new String[] {"://"},
            new String[] {LOWER + "token", LOWER + "key", LOWER + "secret", LOWER + "passw"});

    private Secrets() {
    }

    private static boolean mayMatch(String text, String[] needles) {
        for (String n : needles) {
            if (n.startsWith(LOWER) ? containsIgnoreCase(text, n, 1) : text.contains(n)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code text} contains {@code needle} from index {@code from} on (lower case), in any case. */
    private static boolean containsIgnoreCase(String text, String needle, int from) {
        int len = needle.length() - from;
        char lower = needle.charAt(from);
        char upper = Character.toUpperCase(lower);
        for (int i = 0, last = text.length() - len; i <= last; i++) {
            char c = text.charAt(i);
            if ((c == lower || c == upper) && text.regionMatches(true, i, needle, from, len)) {
                return true;
            }
        }
        return false;
    }

    /** The text with every secret replaced; the same instance when there is none (null stays null). */
    public static String redact(String text) {
        if (text == null || text.length() < 8) {
            return text;
        }
        View view = View.of(text);
        List<int[]> spans = spans(view.text);
        if (spans.isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int at = 0;
        for (int[] s : spans) {
            int from = view.start(s[0]);
            int to = view.end(s[1] - 1);
            if (from < at) {
                continue;
            }
            out.append(text, at, from).append(MASK);
            at = to;
        }
        out.append(text, at, text.length());
        String r = out.toString();
        return r.equals(text) ? text : r;
    }

    /**
     * Redacted bytes: text (UTF-8) is redacted as text; other bytes are read as ISO-8859-1, so every byte outside a
     * secret is kept as it was, and each secret character becomes {@code *} (same length: binary files keep their
     * layout). The same array when there is no secret.
     */
    public static byte[] redact(byte[] bytes) {
        if (bytes == null || bytes.length < 8) {
            return bytes;
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            String latin = new String(bytes, StandardCharsets.ISO_8859_1);
            View view = View.of(latin);
            List<int[]> spans = spans(view.text);
            if (spans.isEmpty()) {
                return bytes;
            }
            byte[] out = bytes.clone();
            for (int[] s : spans) {
                for (int i = view.start(s[0]); i < view.end(s[1] - 1); i++) {
                    out[i] = '*';
                }
            }
            return out;
        }
        String r = redact(text);
        return r == text ? bytes : r.getBytes(StandardCharsets.UTF_8);
    }

    /** True when the text holds something {@link #redact(String)} would hide. */
    public static boolean contains(String text) {
        return text != null && !redact(text).equals(text);
    }

    /** True for names whose values are secrets: *TOKEN*, *KEY*, *SECRET*, *PASSWORD* (not TOKENIZER*, *TOKENS). */
    public static boolean isSecretName(String name) {
        return name != null && SECRET_NAME.matcher(name).matches();
    }

    /** An env map as it may be stored or shown: secret-named values are {@link #MASK}, the others redacted. */
    public static Map<String, String> env(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        env.forEach((k, v) -> out.put(k, isSecretName(k) ? MASK : redact(v)));
        return out;
    }

    /**
     * An argv as it may be stored or shown: the value after a secret flag ({@code --api-key X}, {@code --token=X}),
     * secret-named {@code NAME=value} words and every token shape are {@link #MASK}.
     */
    public static List<String> argv(List<String> argv) {
        List<String> out = new ArrayList<>(argv.size());
        boolean hideNext = false;
        for (String a : argv) {
            if (hideNext && a != null && !a.startsWith("--")) {
                out.add(MASK);
                hideNext = false;
                continue;
            }
            hideNext = false;
            if (a == null) {
                out.add(null);
                continue;
            }
            int eq = a.indexOf('=');
            String name = eq > 0 ? a.substring(0, eq) : a;
            if (a.startsWith("-") && secretFlag(name)) {
                if (eq > 0) {
                    out.add(name + "=" + MASK);
                } else {
                    out.add(a);
                    hideNext = true;
                }
            } else if (eq > 0 && name.matches("[A-Za-z_][A-Za-z0-9_]*") && isSecretName(name)) {
                out.add(name + "=" + MASK);
            } else {
                out.add(redact(a));
            }
        }
        return out;
    }

    /** {@code --api-key}, {@code --hf-token}, {@code -token}: a flag whose last word is a secret word. */
    private static boolean secretFlag(String flag) {
        String f = flag.replaceFirst("^-+", "").toLowerCase(Locale.ROOT).replace('_', '-');
        String last = f.substring(f.lastIndexOf('-') + 1);
        return f.equals("api-key") || List.of("token", "key", "apikey", "secret", "password", "passwd").contains(last);
    }

    /**
     * The largest position at or before {@code at} where {@code text} may be cut so that each part, redacted alone,
     * hides every secret: not inside a secret, nor between a secret's name or prefix and its value.
     */
    public static int cut(String text, int at) {
        View view = View.of(text);
        List<int[]> found = found(view.text);
        int c = at;
        for (boolean moved = true; moved; ) {
            moved = false;
            for (int[] f : found) {
                int from = view.start(f[2]);
                if (from < c && c < view.end(f[1] - 1)) {
                    c = from;
                    moved = true;
                }
            }
        }
        return c;
    }

    /** Spans [from, to) of the view to mask, sorted, overlaps merged. */
    private static List<int[]> spans(String view) {
        List<int[]> found = found(view);
        if (found.size() < 2) {
            return found;
        }
        found.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(b[1], a[1]));
        List<int[]> merged = new ArrayList<>();
        int[] cur = found.get(0);
        for (int[] f : found.subList(1, found.size())) {
            if (f[0] <= cur[1]) {
                cur = new int[] {cur[0], Math.max(cur[1], f[1])};
            } else {
                merged.add(cur);
                cur = f;
            }
        }
        merged.add(cur);
        return merged;
    }

    /** Every secret of the view, unmerged: {value from, value to, match start (its name or prefix)}. */
    private static List<int[]> found(String view) {
        List<int[]> found = new ArrayList<>();
        assignments(view, found);
        for (int i = 0; i < PATTERNS.size(); i++) {
            if (!mayMatch(view, NEEDLES.get(i))) {
                continue;
            }
            Matcher m = PATTERNS.get(i).matcher(view);
            while (m.find()) {
                int s = m.start("s");
                int e = quotedEnd(view, s, m.end("s"));
                if (e > s && !(e - s == MASK.length() && view.startsWith(MASK, s))) {
                    found.add(new int[] {s, e, m.start()});
                }
            }
        }
        return found;
    }

    /**
     * {@code NAME=value}, {@code NAME: value}, {@code "name": "value"} (JSON-escaped quotes too) where the name is an
     * {@link #ASSIGNED_NAME}: found at each ':' and '=' by reading the name backwards (a regex lookbehind tried at
     * every colon of a log costs ten times more).
     */
    private static void assignments(String view, List<int[]> found) {
        int n = view.length();
        Matcher value;
        for (int i = 0; i < n; i++) {
            char c = view.charAt(i);
            if (c != ':' && c != '=') {
                continue;
            }
            int j = i - 1;
            for (int k = 0; k < 3 && j >= 0 && Character.isWhitespace(view.charAt(j)); k++) {
                j--;
            }
            for (int k = 0; k < 3 && j >= 0 && "\"'\\".indexOf(view.charAt(j)) >= 0; k++) {
                j--;
            }
            int end = j + 1;
            while (j >= 0 && end - j <= 64 && nameChar(view.charAt(j))) {
                j--;
            }
            if (end - j < 4 || j >= 0 && nameChar(view.charAt(j))) {
                continue;
            }
            if (!secretWordIn(view, j + 1, end)) {
                continue;
            }
            if (!ASSIGNED_NAME.matcher(view.substring(j + 1, end)).matches()) {
                continue;
            }
            boolean password = containsIgnoreCase(view.substring(j + 1, end), LOWER + "pass", 1);
            value = (password ? ASSIGNED_PASSWORD : ASSIGNED_VALUE).matcher(view);
            value.region(i + 1, n);
            if (value.lookingAt()) {
                int from = value.start("s");
                found.add(new int[] {from, quotedEnd(view, from, value.end("s")), j + 1});
            }
        }
    }

    /**
     * The end of a quoted value that starts at {@code from}: the closing quote of {@code "a b c"} or {@code 'a b c'}
     * (or of {@code \"a b\"} in escaped JSON), so a value with blanks is hidden whole; {@code end} when unquoted.
     */
    private static int quotedEnd(String view, int from, int end) {
        char q = from == 0 ? 0 : view.charAt(from - 1);
        if (q != '"' && q != '\'') {
            return end;
        }
        boolean escaped = q == '"' && from >= 2 && view.charAt(from - 2) == '\\';
        for (int k = from; k < view.length() && k - from < 4096; k++) {
            char c = view.charAt(k);
            if (c == '\n') {
                return end;
            }
            if (c == q && (escaped ? view.charAt(k - 1) == '\\' : view.charAt(k - 1) != '\\')) {
                return escaped ? k - 1 : k;
            }
        }
        return end;
    }

    /** Whether {@code view[from, to)} holds key, token, secret, pass or credential (any case): cheap, no copy. */
    private static boolean secretWordIn(String view, int from, int to) {
        for (int k = from; k < to; k++) {
            char c = (char) (view.charAt(k) | 0x20);
            if ((c == 'k' && view.regionMatches(true, k, "key", 0, 3) && k + 3 <= to)
                    || (c == 't' && k + 5 <= to && view.regionMatches(true, k, "token", 0, 5))
                    || (c == 's' && k + 6 <= to && view.regionMatches(true, k, "secret", 0, 6))
                    || (c == 'p' && k + 4 <= to && view.regionMatches(true, k, "pass", 0, 4))
                    || (c == 'c' && k + 10 <= to && view.regionMatches(true, k, "credential", 0, 10))) {
                return true;
            }
        }
        return false;
    }

    private static boolean nameChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
                || c == '.';
    }

    /**
     * The text as the patterns see it: terminal escape sequences (raw ESC or CSI, or written out as backslash-u001b,
     * backslash-x1b, backslash-033, backslash-e) removed, backslash-u and percent ({@code %5F}) escapes of printable
     * ASCII and JSON's escaped slash decoded; the
     * backslash may be doubled any number of times (JSON inside JSON inside a command line).
     * {@code start[i]} and {@code end[i]} are the original characters of view character i.
     */
    private record View(String text, int[] starts, int[] ends) {

        private static final Pattern ESCAPES = Pattern.compile(
                "(?:\u001b|\u009b|\\\\+u001[bB]|\\\\+x1[bB]|\\\\+033|\\\\+e)"
                        + "(?:\\[[0-?]*[ -/]*[@-~]|\\][^\u0007\u001b\\\\]*"
                        + "(?:\u0007|\u001b\\\\|\\\\+u0007|\\\\+x07)?|[@-Z\\\\-_])?"
                        + "|\\\\+u00([2-7][0-9a-fA-F])|%([2-7][0-9a-fA-F])|\\\\+(/)");

        static View of(String text) {
            if (text.indexOf('\u001b') < 0 && text.indexOf('\\') < 0 && text.indexOf('\u009b') < 0
                    && !percentEscape(text)) {
                return new View(text, null, null);
            }
            Matcher m = ESCAPES.matcher(text);
            StringBuilder sb = new StringBuilder(text.length());
            int[] starts = new int[text.length() + 1];
            int[] ends = new int[text.length() + 1];
            int n = 0;
            int at = 0;
            boolean any = false;
            while (m.find()) {
                any = true;
                for (int i = at; i < m.start(); i++) {
                    sb.append(text.charAt(i));
                    starts[n] = i;
                    ends[n++] = i + 1;
                }
                String hex = m.group(1) != null ? m.group(1) : m.group(2);
                if (hex != null || m.group(3) != null) {
                    char c = hex != null ? (char) Integer.parseInt(hex, 16) : '/';
                    if (c != 0x7f) {
                        sb.append(c);
                        starts[n] = m.start();
                        ends[n++] = m.end();
                    }
                }
                at = m.end();
            }
            if (!any) {
                return new View(text, null, null);
            }
            for (int i = at; i < text.length(); i++) {
                sb.append(text.charAt(i));
                starts[n] = i;
                ends[n++] = i + 1;
            }
            return new View(sb.toString(), starts, ends);
        }

        /** Whether a percent escape of printable ASCII occurs ({@code %5F}; not the {@code 50%,} of a log line). */
        private static boolean percentEscape(String text) {
            for (int i = text.indexOf('%'); i >= 0 && i + 2 < text.length(); i = text.indexOf('%', i + 1)) {
                char h = text.charAt(i + 1);
                if (h >= '2' && h <= '7' && Character.digit(text.charAt(i + 2), 16) >= 0) {
                    return true;
                }
            }
            return false;
        }

        int start(int i) {
            return starts == null ? i : starts[i];
        }

        int end(int i) {
            return ends == null ? i + 1 : ends[i];
        }
    }
}
