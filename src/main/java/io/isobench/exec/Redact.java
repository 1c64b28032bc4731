package io.isobench.exec;

import java.util.regex.Pattern;

/** Removes secrets from text before it is stored: HF tokens, API keys, Authorization headers. */
public final class Redact {

    private static final Pattern HF_TOKEN = Pattern.compile("\\bhf_[A-Za-z0-9]{20,}");
    private static final Pattern API_KEY = Pattern.compile("\\bsk-[A-Za-z0-9_-]{20,}");
    private static final Pattern AUTHORIZATION = Pattern.compile("(?i)(authorization\\s*[:=]\\s*)(\"?)[^\\r\\n\"]+");

    private Redact() {
    }

    public static String secrets(String text) {
        if (text == null) {
            return null;
        }
        String t = HF_TOKEN.matcher(text).replaceAll("hf_***");
        t = API_KEY.matcher(t).replaceAll("sk-***");
        return AUTHORIZATION.matcher(t).replaceAll("$1$2***");
    }
}
