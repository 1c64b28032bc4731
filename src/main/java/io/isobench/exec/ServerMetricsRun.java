package io.isobench.exec;

import io.isobench.engine.Engines;
import io.isobench.loadgen.ServerMetricNames;
import io.isobench.loadgen.ServerMetricsScraper;
import io.isobench.loadgen.ServerMetricsSummary;
import io.isobench.parse.Metric;
import io.isobench.plan.Job;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The server's {@code /metrics} scraped around one measured serving run (docs/server-metrics.md), the same for every
 * executor that runs the pinned client on this machine (local, Docker, Slurm): started before the client, marked when
 * its warm-up is done, stopped after it whatever happened; never fails the run. Off for correctness checks and when
 * the job's interval is 0. The same marks bound the run's {@link MeasuredWindow} (warm-up done → client returned),
 * recorded for every measured job whether or not {@code /metrics} is scraped: the GPU energy window
 * (docs/gpu-telemetry.md).
 */
final class ServerMetricsRun {

    /** The job's engine's Prometheus names: its server command's adapter (docs/engines.md, "At run time"). */
    private final ServerMetricNames names;
    private final ServerMetricsScraper scraper;
    private final boolean measured;
    private ServerMetricsScraper.Series series;
    private volatile Instant measuredFrom;
    private Instant measuredTo;

    private ServerMetricsRun(ServerMetricNames names, ServerMetricsScraper scraper, boolean measured) {
        this.names = names;
        this.scraper = scraper;
        this.measured = measured;
    }

    /** Starts scraping {@code base} for a measured job with a positive interval; a no-op run otherwise. */
    static ServerMetricsRun start(Job job, URI base) {
        ServerMetricNames names = namesOf(job);
        return new ServerMetricsRun(names, job.kind() == Job.Kind.CHECK || job.serverMetricsIntervalMs() <= 0 ? null
                : ServerMetricsScraper.start(base, Duration.ofMillis(job.serverMetricsIntervalMs()), names),
                job.kind() == Job.Kind.MEASURE);
    }

    /**
     * The Prometheus names a job's server exports: those of the adapter of its command ({@link Engines#forCommand});
     * vLLM's for the engines isobench runs (vllm, toy and generic servers are no other engine's program).
     */
    static ServerMetricNames namesOf(Job job) {
        return Engines.forCommand(job.argv()).serverMetrics();
    }

    /** What the client calls when its warm-up requests are done: the measured window starts (and the scraper marks). */
    Runnable measuredStart() {
        return () -> {
            if (measuredFrom == null) {
                measuredFrom = Instant.now();
            }
            if (scraper != null) {
                scraper.markMeasuredStart();
            }
        };
    }

    /** Stops scraping (once), ends the measured window and appends the one log line on the scrapes to {@code log}. */
    void stop(StringBuilder log) {
        if (measuredTo == null) {
            measuredTo = Instant.now();
        }
        if (scraper != null && series == null) {
            series = scraper.stop();
            log.append(scrapeLine(series));
        }
    }

    /**
     * {@code done} with the series artifact and, for a run that succeeded, the summaries and the client-vs-server
     * TTFT cross-check against the client's {@code done.metrics()}, and the measured window ({@link #window()});
     * only the window when nothing was scraped.
     */
    JobResult attach(JobResult done) {
        done = done.withMeasuredWindow(window());
        if (series == null) {
            return done;
        }
        if (!done.success()) {
            return done.withServerMetrics(series.toJson(), List.of());
        }
        List<Metric> summaries = new ArrayList<>(series.summaries());
        summaries.addAll(ServerMetricsSummary.crossCheck(done.metrics(), summaries, names));
        return done.withServerMetrics(series.toJson(), summaries);
    }

    /** The measured phase's bounds: null unless a measured job's client marked its start and the run was stopped. */
    MeasuredWindow window() {
        return measured && measuredFrom != null && measuredTo != null && !measuredTo.isBefore(measuredFrom)
                ? new MeasuredWindow(measuredFrom, measuredTo) : null;
    }

    /**
     * One log line on the scrapes of a run: how many, how many failed and why (the first reason), malformed lines,
     * and how many were left out of the stored series when its byte cap was reached.
     */
    static String scrapeLine(ServerMetricsScraper.Series series) {
        ServerMetricsScraper.Counts c = series.counts();
        return "isobench: server metrics " + series.endpoint() + ": " + c.ok() + " scrape(s), "
                + c.failures() + " failed" + (c.firstError() == null ? "" : " (first: " + c.firstError() + ")") + ", "
                + c.badLines() + " malformed line(s)" + (c.firstBad() == null ? "" : " (first: " + c.firstBad() + ")")
                + (c.leftOut() == 0 ? "" : ", " + c.leftOut() + " scrape(s) left out of the stored series (its cap "
                + "reached; the summaries count them)")
                + "\n";
    }
}
