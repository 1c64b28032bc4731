package io.isobench.guard;

import java.util.Locale;

/**
 * Text from outside (server error bodies, logs, legacy files, patches) may carry terminal control sequences that clear
 * the screen, set the window title or hide what follows. Everything isobench prints goes through {@link #safe}:
 * control characters other than tab, newline and carriage return, DEL, the C1 controls (U+0080–U+009F) and the
 * bidirectional overrides (U+202A–U+202E, U+2066–U+2069) are written out as a backslash, {@code u} and four hex
 * digits instead of being sent.
 */
public final class Terminal {

    private Terminal() {
    }

    /** The text with every control character a terminal would interpret written out; the same instance when none. */
    public static String safe(String text) {
        if (text == null) {
            return null;
        }
        int n = text.length();
        int i = 0;
        while (i < n && !control(text.charAt(i))) {
            i++;
        }
        if (i == n) {
            return text;
        }
        StringBuilder sb = new StringBuilder(n + 16);
        sb.append(text, 0, i);
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (control(c)) {
                sb.append("\\u").append(String.format(Locale.ROOT, "%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    static boolean control(char c) {
        if (c < 0x20) {
            return c != '\n' && c != '\t' && c != '\r';
        }
        return c >= 0x7f && c <= 0x9f || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069;
    }
}
