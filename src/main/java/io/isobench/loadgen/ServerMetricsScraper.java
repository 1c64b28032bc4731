package io.isobench.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Scrapes a server's Prometheus {@code /metrics} at a fixed interval on a daemon thread of its own, from
 * {@link #start} until {@link #stop} (which takes one last scrape, so a run shorter than the interval still has a
 * first and a last one). Nothing it meets fails the run it watches: an unreachable endpoint, an HTTP error, a body
 * over {@value #MAX_BODY} bytes or a malformed line is counted and kept as a reason in the {@link Series}.
 */
public final class ServerMetricsScraper {

    /** The default scrape interval (AIPerf scrapes at ~3 Hz; vLLM's own logging is every 5 s). */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** The largest body read from {@code /metrics}; a larger one is a failed scrape. */
    static final int MAX_BODY = 8 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI endpoint;
    private final Duration interval;
    private final HttpClient http;
    private final List<Scrape> scrapes = new ArrayList<>();
    private final long t0 = System.nanoTime();
    private volatile boolean stopping;
    private volatile double measuredFromMs = Double.NaN;
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
     * Every scrape of a run, in order, and the interval asked for.
     *
     * @param measuredFromMs when the measured phase began (the scrape {@link #markMeasuredStart} took, after the
     *                       warm-up requests), or NaN when nobody marked it: then every scrape is of the measured
     *                       phase
     */
    public record Series(String endpoint, double intervalMs, List<Scrape> scrapes, double measuredFromMs) {
        public Series {
            scrapes = List.copyOf(scrapes);
        }

        /** A series without a marked measured phase. */
        public Series(String endpoint, double intervalMs, List<Scrape> scrapes) {
            this(endpoint, intervalMs, scrapes, Double.NaN);
        }

        /** Scrapes that returned a parsed body. */
        public List<Scrape> ok() {
            return scrapes.stream().filter(s -> s.exposition() != null).toList();
        }

        /** The successful scrapes of the measured phase: from the mark on (all of them when there is no mark). */
        public List<Scrape> measured() {
            return ok().stream().filter(s -> Double.isNaN(measuredFromMs) || s.tMs() >= measuredFromMs).toList();
        }

        /** Scrapes that failed (unreachable, HTTP error, too large). */
        public long failures() {
            return scrapes.stream().filter(s -> s.exposition() == null).count();
        }

        /** Malformed lines over all scrapes. */
        public long badLines() {
            return ok().stream().mapToLong(s -> s.exposition().badLines()).sum();
        }

        /**
         * The artifact: {@code {"format": "isobench-server-metrics/1", "endpoint", "interval_ms", "types",
         * "scrapes": [{"t_ms", "error"?, "bad_lines"?, "errors"?, "samples": {series key: value}}]}}; non-finite
         * values (NaN) are left out of {@code samples}.
         */
        public String toJson() {
            ObjectNode root = JSON.createObjectNode();
            root.put("format", "isobench-server-metrics/1");
            root.put("endpoint", endpoint);
            root.put("interval_ms", intervalMs);
            if (!Double.isNaN(measuredFromMs)) {
                root.put("measured_from_ms", Math.round(measuredFromMs * 10) / 10.0);
            }
            ObjectNode types = root.putObject("types");
            ArrayNode arr = root.putArray("scrapes");
            for (Scrape s : scrapes) {
                ObjectNode o = arr.addObject();
                o.put("t_ms", Math.round(s.tMs() * 10) / 10.0);
                if (s.error() != null) {
                    o.put("error", s.error());
                    continue;
                }
                s.exposition().types().forEach(types::put);
                if (s.exposition().badLines() > 0) {
                    o.put("bad_lines", s.exposition().badLines());
                    ArrayNode errs = o.putArray("errors");
                    s.exposition().errors().forEach(errs::add);
                }
                ObjectNode samples = o.putObject("samples");
                for (PromText.Sample x : s.exposition().samples()) {
                    if (Double.isFinite(x.value())) {
                        samples.put(x.key(), x.value());
                    }
                }
            }
            try {
                return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private ServerMetricsScraper(URI base, Duration interval) {
        this.endpoint = base.resolve("/metrics");
        this.interval = interval;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout(interval)).build();
    }

    /** Starts scraping {@code base}'s {@code /metrics} now (first scrape at once), every {@code interval}. */
    public static ServerMetricsScraper start(URI base, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the scrape interval must be positive: " + interval);
        }
        ServerMetricsScraper s = new ServerMetricsScraper(base, interval);
        s.thread = Thread.ofPlatform().daemon().name("isobench-metrics-scraper").start(s::loop);
        return s;
    }

    /** Scrapes kept so far (tests wait on it). */
    int scrapeCount() {
        synchronized (scrapes) {
            return scrapes.size();
        }
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
        Scrape last = scrapeOnce();
        synchronized (scrapes) {
            scrapes.add(last);
            return new Series(endpoint.toString(), interval.toNanos() / 1e6, scrapes, measuredFromMs);
        }
    }

    /**
     * Marks the start of the measured phase (after the warm-up requests): takes a scrape now, on the caller's
     * thread, and summaries count from it on, so warm-up requests are left out of the counters and histograms. A
     * failed mark scrape still marks the moment (the next good scrape is then the baseline).
     */
    public void markMeasuredStart() {
        Scrape s = scrapeOnce();
        synchronized (scrapes) {
            scrapes.add(s);
            scrapes.sort(java.util.Comparator.comparingDouble(Scrape::tMs));
        }
        measuredFromMs = s.tMs();
    }

    private void loop() {
        long next = System.nanoTime();
        while (!stopping) {
            Scrape s = scrapeOnce();
            if (stopping) {
                return; // the last scrape is stop()'s
            }
            synchronized (scrapes) {
                scrapes.add(s);
            }
            next += interval.toNanos();
            long wait = next - System.nanoTime();
            if (wait < 0) {
                next = System.nanoTime(); // a slow scrape: no burst of catch-up scrapes
                continue;
            }
            try {
                Thread.sleep(Duration.ofNanos(wait));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One GET of {@code /metrics}; any failure becomes the scrape's error. */
    Scrape scrapeOnce() {
        double t = (System.nanoTime() - t0) / 1e6;
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
