package io.isobench.guard;

import java.io.IOException;
import java.io.Writer;

/**
 * The exit of every line isobench prints (stdout and stderr of the CLI): text is held until a newline or a flush,
 * then redacted ({@link Secrets#redact}) and made terminal-safe ({@link Terminal#safe}) before it is written. What
 * one {@code print} call wrote is redacted as a whole, so a secret spread over several lines of one call is found.
 */
public final class SafeWriter extends Writer {

    /** A line longer than this is written in parts; the last {@value #KEEP} characters wait for the rest. */
    private static final int MAX_PENDING = 1 << 20;
    private static final int KEEP = 4096;

    private final Writer out;
    private final StringBuilder pending = new StringBuilder();

    public SafeWriter(Writer out) {
        this.out = out;
    }

    @Override
    public void write(char[] cbuf, int off, int len) throws IOException {
        pending.append(cbuf, off, len);
        drain(false);
    }

    @Override
    public void write(String str, int off, int len) throws IOException {
        pending.append(str, off, off + len);
        drain(false);
    }

    private void drain(boolean all) throws IOException {
        int cut;
        if (all) {
            cut = pending.length();
        } else {
            cut = pending.lastIndexOf("\n") + 1;
            if (cut == 0 && pending.length() > MAX_PENDING) {
                // a huge line: write all but its end, cut at a blank and never inside a secret or between its
                // name and its value (each part is redacted alone); a "secret" over the whole megabyte is none
                String text = pending.toString();
                int at = text.lastIndexOf(' ', text.length() - KEEP);
                int candidate = at > 0 ? at + 1 : text.length() - KEEP;
                int safe = Secrets.cut(text, candidate);
                cut = safe > 0 ? safe : candidate;
            }
        }
        if (cut == 0) {
            return;
        }
        String text = pending.substring(0, cut);
        pending.delete(0, cut);
        out.write(Terminal.safe(Secrets.redact(text)));
    }

    @Override
    public void flush() throws IOException {
        drain(true);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        flush();
        out.close();
    }
}
