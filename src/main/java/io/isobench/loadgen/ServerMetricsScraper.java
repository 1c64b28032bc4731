package io.isobench.loadgen;

import io.isobench.parse.Metric;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Scrapes a server's Prometheus {@code /metrics} at a fixed interval on a daemon thread of its own, from
 * {@link #start} until {@link #stop} (which takes one last scrape, so a run shorter than the interval still has a
 * first and a last one). Nothing it meets fails the run it watches: an unreachable endpoint, an HTTP error, a body
 * over {@value #MAX_BODY} bytes (read no further) or a malformed line is counted and kept as a reason in the
 * {@link Series}. Its memory does not grow with the run: each scrape is folded into the summaries and streamed to a
 * capped file as it comes ({@link SeriesRecorder}), never kept.
 */
public final class ServerMetricsScraper {

    /** The default scrape interval (AIPerf scrapes at ~3 Hz; vLLM's own logging is every 5 s). */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** The largest body read from {@code /metrics}; a larger one is a failed scrape. */
    static final int MAX_BODY = 8 << 20;

    private final URI endpoint;
    private final Duration interval;
    private final HttpClient http;
    private final SeriesRecorder recorder;
    private final long t0 = System.nanoTime();
    private volatile boolean stopping;
    private Thread thread;

    /**
     * One scrape.
     *
     * @param tMs        milliseconds since the scraper started (when the request was sent)
     * @param exposition what was parsed, or null when the scrape failed
     * @param error      why it failed (unreachable, HTTP status, too large), or null
     */
    public record Scrape(double tMs, PromText.Exposition exposition, String error) {
    }

    /**
     * How the scrapes of a run went.
     *
     * @param scrapes    every scrape taken
     * @param ok         those that returned a parsed body
     * @param failures   those that failed (unreachable, HTTP error, too large)
     * @param badLines   malformed lines over all successful scrapes
     * @param firstError the first failed scrape's reason, or null
     * @param firstBad   the first malformed line's reason, or null
     * @param leftOut    scrapes left out of the raw series (its byte cap was reached; they still count in the
     *                   summaries)
     */
    public record Counts(long scrapes, long ok, long failures, long badLines, String firstError, String firstBad,
                         long leftOut) {
    }

    /**
     * A run's scrapes as kept: the summaries ({@link ServerMetricsSummary}), the counts, and the raw series as the
     * artifact's JSON (at most 32 MiB of scrape lines).
     *
     * @param measuredFromMs when the measured phase began (the scrape {@link #markMeasuredStart} took, after the
     *                       warm-up requests), or NaN when nobody marked it: then every scrape is of the measured
     *                       phase
     * @param json           the artifact: {@code {"format": "isobench-server-metrics/1", "endpoint", "interval_ms",
     *                       "measured_from_ms"?, "types", "types_left_out"?, "scrapes_left_out"?,
     *                       "series_cap_bytes"?, "series_error"?, "scrapes": [{"t_ms", "error"?, "bad_lines"?,
     *                       "errors"?, "samples": {series key: value}}]}}, scrapes in the order they were sent
     */
    public record Series(String endpoint, double measuredFromMs, Counts counts, List<Metric> summaries,
                         String json) {
        public Series {
            summaries = List.copyOf(summaries);
        }

        /** The series of {@code scrapes} as a scraper would have kept them (tests, goldens). */
        static Series of(String endpoint, double intervalMs, List<Scrape> scrapes, double measuredFromMs,
                         ServerMetricNames names) {
            SeriesRecorder r = new SeriesRecorder(endpoint, intervalMs, SeriesRecorder.MAX_SERIES_BYTES, names);
            if (!Double.isNaN(measuredFromMs)) {
                r.mark(measuredFromMs);
            }
            scrapes.forEach(r::add);
            return r.finish();
        }

        /** The artifact's JSON. */
        public String toJson() {
            return json;
        }
    }

    private ServerMetricsScraper(URI base, Duration interval, ServerMetricNames names) {
        this.endpoint = base.resolve("/metrics");
        this.interval = interval;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout(interval)).build();
        this.recorder = new SeriesRecorder(endpoint.toString(), interval.toNanos() / 1e6,
                SeriesRecorder.MAX_SERIES_BYTES, names);
    }

    /**
     * Starts scraping {@code base}'s {@code /metrics}: the first scrape before this returns, then every {@code interval}, summarised
     * under the engine's {@code names}.
     */
    public static ServerMetricsScraper start(URI base, Duration interval, ServerMetricNames names) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the scrape interval must be positive: " + interval);
        }
        ServerMetricsScraper s = new ServerMetricsScraper(base, interval, names);
        // the first scrape on the caller's thread, before it returns: the series' first sample precedes every request
        // the caller sends next (the warm-up too), whatever the machine's load
        s.recorder.add(s.scrapeOnce());
        s.thread = Thread.ofPlatform().daemon().name("isobench-metrics-scraper").start(s::loop);
        return s;
    }

    /** Scrapes kept so far (tests wait on it). */
    long scrapeCount() {
        return recorder.scrapes();
    }

    /** Stops the thread, takes a last scrape and returns the series. */
    public Series stop() {
        stopping = true;
        thread.interrupt();
        try {
            thread.join(timeout(interval).toMillis() + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        recorder.add(scrapeOnce());
        return recorder.finish();
    }

    /**
     * Marks the start of the measured phase (after the warm-up requests): takes a scrape now, on the caller's
     * thread, and summaries count from it on, so warm-up requests are left out of the counters and histograms. A
     * failed mark scrape still marks the moment (the next good scrape is then the baseline).
     */
    public void markMeasuredStart() {
        double t = now();
        recorder.mark(t);
        recorder.add(scrapeAt(t));
    }

    private void loop() {
        long next = System.nanoTime();
        while (!stopping) {
            next += interval.toNanos();
            long wait = next - System.nanoTime();
            if (wait < 0) {
                next = System.nanoTime(); // a slow scrape: no burst of catch-up scrapes
            } else {
                try {
                    Thread.sleep(Duration.ofNanos(wait));
                } catch (InterruptedException e) {
                    return;
                }
            }
            Scrape s = scrapeOnce();
            if (stopping) {
                return; // the last scrape is stop()'s
            }
            recorder.add(s);
        }
    }

    /** One GET of {@code /metrics}; any failure becomes the scrape's error. */
    Scrape scrapeOnce() {
        return scrapeAt(now());
    }

    private double now() {
        return (System.nanoTime() - t0) / 1e6;
    }

    /** One GET of {@code /metrics} sent at {@code t} (ms since the start); the body is read up to its cap only. */
    private Scrape scrapeAt(double t) {
        HttpRequest req = HttpRequest.newBuilder(endpoint).timeout(timeout(interval)).GET().build();
        try {
            HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                if (r.statusCode() != 200) {
                    return new Scrape(t, null, "HTTP " + r.statusCode());
                }
                byte[] body = in.readNBytes(MAX_BODY + 1);
                if (body.length > MAX_BODY) {
                    return new Scrape(t, null, "body over " + MAX_BODY + " bytes");
                }
                return new Scrape(t, PromText.parse(new String(body, StandardCharsets.UTF_8)), null);
            }
        } catch (InterruptedException e) {
            if (!stopping) {
                Thread.currentThread().interrupt();
            }
            return new Scrape(t, null, "interrupted");
        } catch (IOException | RuntimeException e) {
            return new Scrape(t, null, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** A scrape may take up to the interval, at least 2 s (a busy server answers late, not never). */
    private static Duration timeout(Duration interval) {
        return interval.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : interval;
    }
}
