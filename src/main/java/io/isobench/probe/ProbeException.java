package io.isobench.probe;

import java.io.IOException;

/** The probe set could not be run: the server rejected it, or it does not decode greedily. */
public final class ProbeException extends IOException {

    /** Why: the names stored as the arm's correctness outcome. */
    public enum Kind {
        /** The server answered a probe with an error (HTTP 4xx/5xx, malformed body). */
        PROBE_REJECTED,
        /** The server does not decode greedily: temperature 0 refused, or two identical requests differ. */
        NO_GREEDY_SUPPORT,
        /** The offline probe command failed or printed the wrong number of outputs. */
        OFFLINE_PROBE_FAILED
    }

    private final Kind kind;

    public ProbeException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
