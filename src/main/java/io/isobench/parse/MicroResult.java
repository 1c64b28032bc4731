package io.isobench.parse;

/**
 * One micro-benchmark JSON line ({@code {"impl_tag": …, "avg_ms": …, "p50_ms": …}}) or error object.
 *
 * @param implTag  {@code impl_tag}, or null
 * @param avgMs    {@code avg_ms}, or null (error objects)
 * @param p50Ms    {@code p50_ms}, or null
 * @param p95Ms    {@code p95_ms}, or null
 * @param error    the error text of an error object, or null
 * @param line     the JSON line as printed (redacted)
 */
public record MicroResult(String implTag, Double avgMs, Double p50Ms, Double p95Ms, String error, String line) {

    public boolean ok() {
        return error == null && avgMs != null;
    }
}
