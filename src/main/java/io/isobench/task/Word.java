package io.isobench.task;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * One word of a planned command: literal text and the places where a server's host or port goes ({@link Slot}),
 * never a number standing in for them. A template's {@code {host}} and {@code {port}} become slots once, when the
 * template is read ({@link #template}); text put in later ({@code {model}}, flags, paths) is never searched for them,
 * so a flag value that holds the digits of a port, or the text {@code {port}}, runs as written. {@code plan.Command}
 * fills the slots.
 *
 * @param parts the word's parts in order; at least one
 */
public record Word(List<Part> parts) {

    /** A part of a word: literal text or a slot. */
    public sealed interface Part permits Text, Slot {
    }

    /** Literal text, run as written. */
    public record Text(String text) implements Part {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /** Where the executor puts the server's host or port; written {@code {host}}, {@code {port}} in a template. */
    public enum Slot implements Part {
        HOST("{host}"),
        PORT("{port}");

        private final String placeholder;

        Slot(String placeholder) {
            this.placeholder = placeholder;
        }

        /** How a template writes the slot. */
        public String placeholder() {
            return placeholder;
        }
    }

    /** The word that is the server's host. */
    public static final Word HOST = new Word(List.of(Slot.HOST));

    /** The word that is the server's port. */
    public static final Word PORT = new Word(List.of(Slot.PORT));

    public Word {
        parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a word has at least one part");
        }
    }

    /** A literal word, run as written whatever it contains. */
    public static Word text(String text) {
        return new Word(List.of(new Text(text)));
    }

    /** Literal words. */
    public static List<Word> literal(List<String> words) {
        return words.stream().map(Word::text).toList();
    }

    /**
     * A template word as written: each {@code {host}} and {@code {port}} becomes its slot, the rest is text
     * ({@code --bind={host}:{port}} → text, host, text, port).
     */
    public static Word template(String written) {
        List<Part> out = new ArrayList<>();
        int from = 0;
        while (true) {
            int at = -1;
            Slot slot = null;
            for (Slot s : Slot.values()) {
                int i = written.indexOf(s.placeholder(), from);
                if (i >= 0 && (at < 0 || i < at)) {
                    at = i;
                    slot = s;
                }
            }
            if (slot == null) {
                break;
            }
            if (at > from) {
                out.add(new Text(written.substring(from, at)));
            }
            out.add(slot);
            from = at + slot.placeholder().length();
        }
        if (from < written.length() || out.isEmpty()) {
            out.add(new Text(written.substring(from)));
        }
        return new Word(out);
    }

    /** Template words ({@link #template} each). */
    public static List<Word> template(List<String> written) {
        return written.stream().map(Word::template).toList();
    }

    /** This word with {@code f} applied to its text parts only (the slots stay slots). */
    public Word mapText(UnaryOperator<String> f) {
        return new Word(parts.stream().map(p -> p instanceof Text t ? new Text(f.apply(t.text())) : p).toList());
    }

    /** Whether the word holds {@code slot}. */
    public boolean has(Slot slot) {
        return parts.contains(slot);
    }

    /** The word as a template writes it: text as is, slots as {@code {host}}, {@code {port}}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Part p : parts) {
            sb.append(p instanceof Text t ? t.text() : ((Slot) p).placeholder());
        }
        return sb.toString();
    }

    /** The words as a template writes them ({@link #toString} each). */
    public static List<String> shown(List<Word> words) {
        return words.stream().map(Word::toString).toList();
    }
}
