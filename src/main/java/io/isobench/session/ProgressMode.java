package io.isobench.session;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** How a session shows its progress ({@code --progress}): the {@link SessionListener} each mode makes. */
public enum ProgressMode {
    /** A bar on an interactive terminal whose stderr is not redirected, else plain lines. */
    AUTO,
    /** One line per job and per note. */
    PLAIN,
    /** One JSON object per event. */
    JSON,
    /** One redrawn line. */
    TTY;

    /** The mode an option names ({@code auto|plain|json|tty}, any case). */
    public static ProgressMode of(String name) {
        try {
            return valueOf(name.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IsobenchException.BadInput("--progress " + name + ": use auto, plain, json or tty");
        }
    }

    /** The listener writing to {@code out} (stderr); AUTO decides now whether it is a terminal. */
    public SessionListener listener(PrintWriter out) {
        return switch (this == AUTO ? (interactive() ? TTY : PLAIN) : this) {
            case JSON -> new JsonListener(out);
            case TTY -> new TtyListener(out);
            default -> new PlainListener(out);
        };
    }

    /**
     * A terminal: a console, stderr not redirected (where {@code /proc} tells), and no
     * {@code ISOBENCH_PLAIN_PROGRESS} in the environment.
     */
    private static boolean interactive() {
        if (System.console() == null || System.getenv("ISOBENCH_PLAIN_PROGRESS") != null) {
            return false;
        }
        Path stderr = Path.of("/proc/self/fd/2");
        try {
            String target = Files.readSymbolicLink(stderr).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return true; // no /proc: the console decides
        }
    }
}
