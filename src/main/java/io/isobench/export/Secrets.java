package io.isobench.export;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Redacts secrets (HF tokens, API keys, Authorization headers) from text before it is stored or exported. */
final class Secrets {

    private static final List<Pattern> PATTERNS = List.of(
            Pattern.compile("\\bhf_[A-Za-z0-9]{20,}"),
            Pattern.compile("\\bsk-[A-Za-z0-9_\\-]{20,}"),
            Pattern.compile("(?i)(authorization:\\s*)([^\\r\\n]+)"),
            Pattern.compile("(?i)((?:api[_-]?key|access[_-]?token|hf[_-]?token)[\"']?\\s*[:=]\\s*[\"']?)([A-Za-z0-9_\\-]{12,})"));

    /** Per pattern, words one of which must occur (lower case) for it to match: most text skips the regexes. */
    private static final List<List<String>> NEEDLES = List.of(List.of("hf_"), List.of("sk-"), List.of("authorization"),
            List.of("key", "token"));

    static final String MARK = "[REDACTED]";

    private Secrets() {
    }

    /** The text with secrets replaced by {@value #MARK}; the same instance when nothing matched. */
    static String redact(String text) {
        if (text == null) {
            return null;
        }
        String out = text;
        String lower = text.toLowerCase(java.util.Locale.ROOT);
        for (int i = 0; i < PATTERNS.size(); i++) {
            if (NEEDLES.get(i).stream().noneMatch(lower::contains)) {
                continue;
            }
            Pattern p = PATTERNS.get(i);
            Matcher m = p.matcher(out);
            if (!m.find()) {
                continue;
            }
            m.reset();
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                String rep = m.groupCount() >= 2 ? m.group(1) + MARK : MARK;
                if (m.groupCount() >= 2 && m.group(2).equals(MARK)) {
                    rep = m.group(0);
                }
                m.appendReplacement(sb, Matcher.quoteReplacement(rep));
            }
            m.appendTail(sb);
            out = sb.toString();
        }
        return out.equals(text) ? text : out;
    }
}
