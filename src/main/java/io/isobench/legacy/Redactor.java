package io.isobench.legacy;

/** Redacts secrets before anything is stored: {@link io.isobench.guard.Secrets}, the one redactor. */
final class Redactor {

    private Redactor() {
    }

    static String redact(String text) {
        return io.isobench.guard.Secrets.redact(text);
    }
}
