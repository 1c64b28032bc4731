package io.isobench.plan;

import io.isobench.task.Word;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A job's command line as planned: typed {@link Word}s, in which a server's host and port are slots
 * ({@link Word.Slot}) until the executor picks them. This is the one place the slots are filled in
 * ({@link #argvFor}, {@link #line}); literal text is never searched for a port, so every flag runs as written.
 *
 * @param words the words; a server's words hold the port slot (and usually the host slot)
 */
public record Command(List<Word> words) {

    /** Where a server binds unless the executor says otherwise: the suite's {@code {host}}. */
    public static final String LOOPBACK = "127.0.0.1";

    public Command {
        words = List.copyOf(words);
    }

    /** A command of literal words (an offline benchmark, a probe, an accuracy command). */
    public static Command of(List<String> argv) {
        return new Command(Word.literal(argv));
    }

    /** A command from template words: {@code {host}} and {@code {port}} become slots ({@link Word#template}). */
    public static Command template(List<String> written) {
        return new Command(Word.template(written));
    }

    /** Whether the command has a port slot (a server). */
    public boolean hasPort() {
        return words.stream().anyMatch(w -> w.has(Word.Slot.PORT));
    }

    /** The argv bound to {@code host} and {@code port}. */
    public List<String> argvFor(String host, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port (" + port + ") must be in 1..65535");
        }
        String p = Integer.toString(port);
        return words.stream().map(w -> fill(w, host, p)).toList();
    }

    /** The argv bound to the loopback address and {@code port}. */
    public List<String> argvFor(int port) {
        return argvFor(LOOPBACK, port);
    }

    /**
     * The argv as planned and shown ({@code --dry-run}, the plan's JSON, a run's argv before its server started): the
     * host the loopback address, the port still open as {@code {port}}.
     */
    public List<String> planned() {
        return words.stream().map(w -> fill(w, LOOPBACK, Word.Slot.PORT.placeholder())).toList();
    }

    /**
     * One shell line: each text part through {@code quote}, the host as {@code host} (quoted), the port as
     * {@code portExpr} (a shell expression such as {@code "$PORT"}, never quoted).
     */
    public String line(UnaryOperator<String> quote, String host, String portExpr) {
        List<String> out = new ArrayList<>();
        for (Word w : words) {
            StringBuilder sb = new StringBuilder();
            for (Word.Part part : w.parts()) {
                switch (part) {
                    case Word.Text t -> sb.append(quote.apply(t.text()));
                    case Word.Slot s -> sb.append(s == Word.Slot.PORT ? portExpr : quote.apply(host));
                }
            }
            out.add(sb.toString());
        }
        return String.join(" ", out);
    }

    /** One shell line of a command run as it is (no server): each word through {@code quote}, a slot as written. */
    public String line(UnaryOperator<String> quote) {
        return String.join(" ", words.stream().map(w -> quote.apply(w.toString())).toList());
    }

    private static String fill(Word w, String host, String port) {
        StringBuilder sb = new StringBuilder();
        for (Word.Part part : w.parts()) {
            switch (part) {
                case Word.Text t -> sb.append(t.text());
                case Word.Slot s -> sb.append(s == Word.Slot.PORT ? port : host);
            }
        }
        return sb.toString();
    }
}
