package io.isobench.exec;

import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.plan.Job;
import io.isobench.probe.Greedy;
import io.isobench.probe.ProbeException;
import io.isobench.probe.ServingClient;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one serve-and-measure path of every executor that runs isobench's client on this machine (local, docker, ssh:
 * a server a {@link Placement} started; slurm: the server of a batch job): the server started, then ready (the
 * readiness probe's paths in turn, a server that ends first is a crash the placement classifies), then the pinned
 * client of a measured job or the greedy probes of a check within the job's limit, then classified (a client that
 * fails while the server still runs: {@code NO_METRICS}; after it died: the server's crash), then torn down on every
 * path, then one result: the server's log and the client's section, metrics and workload of a run or outputs and
 * probes of a check, the server-metrics series and the measured window.
 */
final class ServePipeline {

    /** A started server as the pipeline sees it, wherever it runs. */
    interface Server {
        /** Where it answers ({@code http://host:port}); null until known (a batch job writes it once it runs). */
        URI endpoint();

        /** Null while it runs; else the failure its end before readiness means (classified by the placement). */
        Failure crashedBeforeReady();

        /** Whether it still runs: a client that fails while it does failed itself; after it died, the server did. */
        boolean alive();

        /** Its log so far (the placement's notes first). */
        String log();

        /** The server's argv as it runs (the port filled in once known). */
        List<String> argv();

        /**
         * Tears it down, whatever state it is in; records {@code teardown_ms} in {@code timings} and appends to
         * {@code notes} what could not be torn down.
         */
        void stop(Map<String, Double> timings, StringBuilder notes);
    }

    /** Why a server did not start: the job's result as it stands. */
    static final class NotStarted extends Exception {
        final transient JobResult result;

        NotStarted(JobResult result) {
            super(result.failure() == null ? "not started" : result.failure().detail());
            this.result = result;
        }
    }

    /** Starts a job's server. */
    interface Start {
        Server start() throws NotStarted;
    }

    /** The client of a serving job ran past the job's limit. */
    static final class PastLimit extends Exception {
        PastLimit(String message) {
            super(message);
        }
    }

    /**
     * What the client or the probes measured.
     *
     * @param client the client's result (metrics, workload, requests lost by reason); null for a check
     * @param probes the check's probe run; null for a measured run
     */
    private record Measured(ServingClient.Result client, Greedy.ProbeRun probes, String console) {
        static Measured of(ServingClient.Result r) {
            return new Measured(r, null, r.console());
        }

        static Measured of(Greedy.ProbeRun p) {
            return new Measured(null, p, probeLine(p));
        }
    }

    private final Readiness.HttpProbe readiness;
    private final ServingClient client;

    ServePipeline(Readiness.HttpProbe readiness, ServingClient client) {
        this.readiness = readiness;
        this.client = client;
    }

    /** Serves {@code job} on the server {@code start} starts and measures it; never throws for a failing job. */
    JobResult serve(Job job, Executor.Hooks hooks, long t0, Map<String, Double> timings, Start start) {
        Server server;
        try {
            server = start.start();
        } catch (NotStarted e) {
            return e.result;
        }
        StringBuilder clientLog = new StringBuilder();
        Failure failure = null;
        Measured measured = null;
        ProbeException.Kind probeFailure = null;
        ServerMetricsRun scrape = null;
        try {
            long ts = System.nanoTime();
            failure = awaitReady(job, server, hooks);
            timings.put("ready_ms", (System.nanoTime() - ts) / 1e6);
            if (failure == null) {
                long tc = System.nanoTime();
                URI base = server.endpoint();
                String model = job.model();
                // the server's /metrics during the measured run (docs/server-metrics.md); never fails the run
                scrape = ServerMetricsRun.start(job, base);
                Runnable measuredStart = scrape.measuredStart();
                try {
                    // the client (or the probes) within the job's limit, whatever the server sends or withholds
                    measured = job.kind() == Job.Kind.CHECK
                            ? Measured.of(withinLimit(job.limits().runS(), () -> probe(base, model, job)))
                            : Measured.of(withinLimit(job.limits().runS(), () -> client.run(base,
                            new ServingClient.Workload(model, job.client().loadgenFlags(), job.warmupRequests(), 0L,
                                    job.cwd()), measuredStart)));
                    clientLog.append(measured.console());
                } catch (PastLimit e) {
                    clientLog.append("isobench: ").append(e.getMessage()).append('\n');
                    failure = new Failure(FailureCategory.TIMEOUT, e.getMessage(), List.of(e.getMessage()));
                } catch (ProbeException e) {
                    // the server is up and answered, but not with greedy outputs of the probe set
                    probeFailure = e.kind();
                    clientLog.append("probe: ").append(e.getMessage()).append('\n');
                    failure = server.alive()
                            ? new Failure(FailureCategory.NO_METRICS, e.kind().name() + ": " + e.getMessage(),
                            List.of(e.getMessage()))
                            : LocalExecutor.serverFailure(server.log(), server.argv(), FailureCategory.SERVER_CRASHED,
                            "the server died during the probes");
                } catch (IOException | RuntimeException e) {
                    clientLog.append("isobench: the client failed: ").append(e.getMessage()).append('\n');
                    failure = server.alive()
                            ? new Failure(FailureCategory.NO_METRICS, "the client failed: " + e.getMessage(),
                            List.of(String.valueOf(e.getMessage())))
                            : LocalExecutor.serverFailure(server.log(), server.argv(), FailureCategory.SERVER_CRASHED,
                            "the server died during the run");
                } finally {
                    scrape.stop(clientLog);
                }
                timings.put("client_ms", (System.nanoTime() - tc) / 1e6);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = new Failure(FailureCategory.INFRA_TRANSIENT, "interrupted", List.of());
        } finally {
            server.stop(timings, clientLog);
        }
        String text = server.log() + (clientLog.isEmpty() ? "" : "\n--- isobench client ---\n" + clientLog);
        ServingClient.Result ran = measured == null ? null : measured.client();
        JobResult done = ran == null
                ? JobResult.ended(t0, failure, List.of(), null, text, timings, server.argv())
                : JobResult.ended(t0, failure, ran.metrics(), ran.workloadJson(), text, timings, server.argv())
                .withLostRequests(ran.lost()).withFidelity(ran.fidelity());
        if (measured != null && measured.probes() != null) {
            done = done.withOutputs(measured.probes().texts())
                    .withProbes(failure == null ? measured.probes().toJson() : null);
        }
        done = done.withProbeFailure(failure == null ? null : probeFailure);
        return scrape == null ? done : scrape.attach(done);
    }

    /**
     * Waits until the server answers each readiness path in turn: null when it does; else why not (it ended first,
     * the session was cancelled, or the job's server-start limit passed).
     */
    private Failure awaitReady(Job job, Server server, Executor.Hooks hooks) throws InterruptedException {
        long end = System.nanoTime() + job.limits().serverStartS() * 1_000_000_000L;
        int stage = 0;
        while (true) {
            Failure crashed = server.crashedBeforeReady();
            if (crashed != null) {
                return crashed;
            }
            URI base = server.endpoint();
            if (base != null && Readiness.HttpProbe.ok(base.getHost(), base.getPort(),
                    readiness.paths().get(stage))) {
                stage++;
                if (stage == readiness.paths().size()) {
                    return null;
                }
                continue;
            }
            if (hooks.cancelled().getAsBoolean()) {
                return new Failure(FailureCategory.SERVER_START_TIMEOUT, "cancelled before the server was ready",
                        List.of());
            }
            if (System.nanoTime() > end) {
                return LocalExecutor.serverFailure(server.log(), server.argv(), FailureCategory.SERVER_START_TIMEOUT,
                        "the server was not ready within " + job.limits().serverStartS() + " s");
            }
            Thread.sleep(readiness.pollInterval().toMillis());
        }
    }

    /** The check's probes against the server at {@code base}. */
    private static Greedy.ProbeRun probe(URI base, String model, Job job) throws IOException, InterruptedException {
        return Greedy.probe(base, model, job.probes().numPrompts(), job.probes().maxTokens(), job.probes().logprobs());
    }

    /** The client log's line about a check's probes. */
    static String probeLine(Greedy.ProbeRun probes) {
        return "greedy outputs: " + probes.sequential().size() + " prompts one at a time, then "
                + probes.batchSize() + " requests at once\n";
    }

    /**
     * Runs {@code work} on a thread of its own and waits at most {@code limitS}: past it the thread is interrupted
     * (the load generator stops at once) and {@link PastLimit} is thrown, so the job's limit holds even when the
     * client never returns (a server that sends forever, a client thread that died).
     */
    static <T> T withinLimit(int limitS, Callable<T> work) throws PastLimit, IOException, InterruptedException {
        FutureTask<T> task = new FutureTask<>(work);
        Thread t = Thread.ofPlatform().daemon().name("isobench-client").start(task);
        try {
            return task.get(limitS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            t.interrupt();
            throw new PastLimit("the client ran past the job's limit of " + limitS + " s and was stopped");
        } catch (InterruptedException e) {
            t.interrupt();
            throw e;
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw new IllegalStateException("the client failed: " + err, err);
            }
            throw new IllegalStateException(c);
        }
    }
}
