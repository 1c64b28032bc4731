package io.isobench.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A job's command line as planned: its words, in which a server's port may still be open ({@link #PORT}, the suite
 * YAML's {@code {port}}) until the executor picks one. {@link #argvFor} is the one place the port is filled in.
 *
 * @param words the argv; a server's words hold {@link #PORT} where the port goes
 */
public record Command(List<String> words) {

    /** Where the port goes in a planned server argv (the suite syntax {@code {port}}). */
    public static final String PORT = "{port}";

    public Command {
        words = List.copyOf(words);
    }

    /** The argv with the port filled in. */
    public List<String> argvFor(int port) {
        String p = Integer.toString(port);
        return words.stream().map(w -> w.replace(PORT, p)).toList();
    }

    /**
     * One shell line: each word through {@code quote}, the port as {@code portExpr} (a shell expression such as
     * {@code "$PORT"}), never quoted; a null {@code portExpr} leaves the port marker as written.
     */
    public String line(UnaryOperator<String> quote, String portExpr) {
        List<String> out = new ArrayList<>();
        for (String w : words) {
            if (portExpr == null || !w.contains(PORT)) {
                out.add(quote.apply(w));
                continue;
            }
            StringBuilder sb = new StringBuilder();
            String[] parts = w.split(java.util.regex.Pattern.quote(PORT), -1);
            for (int i = 0; i < parts.length; i++) {
                if (!parts[i].isEmpty()) {
                    sb.append(quote.apply(parts[i]));
                }
                if (i + 1 < parts.length) {
                    sb.append(portExpr);
                }
            }
            out.add(sb.toString());
        }
        return String.join(" ", out);
    }
}
