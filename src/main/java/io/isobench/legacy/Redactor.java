package io.isobench.legacy;

import io.isobench.guard.Secrets;

/** Redacts secrets before anything is stored: {@link io.isobench.guard.Secrets}, the one redactor. */
final class Redactor {

    private Redactor() {
    }

    static String redact(String text) {
        return Secrets.redact(text);
    }
}
