package io.isobench.legacy;

import java.util.regex.Pattern;

/** Redacts secrets (HF tokens, API keys, Authorization headers) before anything is stored. */
final class Redactor {

    private static final Pattern HF_TOKEN = Pattern.compile("\\bhf_[A-Za-z0-9]{20,}");
    private static final Pattern API_KEY = Pattern.compile("\\bsk-[A-Za-z0-9_-]{20,}");
    private static final Pattern AUTHORIZATION =
            Pattern.compile("(?i)(authorization\\s*[:=]\\s*)(?:bearer\\s+)?[^\\s\"',]+");

    private Redactor() {
    }

    static String redact(String text) {
        if (text == null) {
            return null;
        }
        String r = HF_TOKEN.matcher(text).replaceAll("hf_***REDACTED***");
        r = API_KEY.matcher(r).replaceAll("sk-***REDACTED***");
        return AUTHORIZATION.matcher(r).replaceAll("$1***REDACTED***");
    }
}
