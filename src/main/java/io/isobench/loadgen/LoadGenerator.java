package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Runs one load-generator benchmark in-process: prepares every request, sends them on the arrival schedule
 * (at most {@code maxConcurrency} in flight) through one non-blocking I/O thread, measures each, and summarizes.
 * Request-level failures are recorded, never thrown; a bad configuration or dataset throws
 * {@link IllegalArgumentException} before anything is sent.
 */
public final class LoadGenerator {

    private LoadGenerator() {
    }

    /** Runs with progress lines to {@code progress} (may be null). */
    public static LoadgenResult run(LoadgenConfig config, Consumer<String> progress) {
        return run(config, progress, () -> { });
    }

    /**
     * As {@link #run(LoadgenConfig, Consumer)}, calling {@code measuredStart} once when the warm-up requests are
     * done, just before the measured phase's clock starts (the server-metrics scraper marks its baseline there).
     */
    public static LoadgenResult run(LoadgenConfig config, Consumer<String> progress, Runnable measuredStart) {
        Consumer<String> log = progress == null ? s -> { } : progress;
        List<String> notes = new ArrayList<>();
        // a bad tokenizer file is a config error: reported before anything is sent
        BpeTokenizer tokenizer = config.tokenizer() == null ? null : BpeTokenizer.load(config.tokenizer());
        // so is a bad timed trace: its records are read before the server is asked anything
        List<TimedTrace.Request> traced = config.dataset().kind() != DatasetSpec.Kind.TIMED_TRACE ? null
                : TimedTrace.window(config.dataset(), config.numPrompts());
        int cap = config.maxConcurrency() == null ? Integer.MAX_VALUE : config.maxConcurrency();
        // the I/O thread enforces the cap; the dispatcher only keeps at most one more cap's worth queued behind it
        Flow flow = new Flow((int) Math.min(Integer.MAX_VALUE, 2L * cap), cap);
        try (RequestExecutor exec = new RequestExecutor(config); EventLoop io = new EventLoop(exec, cap, flow::abort)) {
            if (!config.readyCheckTimeout().isZero()) {
                waitReady(exec, config, log, notes);
            }
            double tokensPerWord = 1.0;
            boolean synthetic = config.dataset().kind() == DatasetSpec.Kind.RANDOM
                    || config.dataset().kind() == DatasetSpec.Kind.PREFIX_REPETITION
                    || config.dataset().kind() == DatasetSpec.Kind.TIMED_TRACE;
            if (synthetic && tokenizer == null) {
                tokensPerWord = calibrate(exec, config, log, notes);
            } else if (synthetic) {
                notes.add(config.dataset().kind().name().toLowerCase(Locale.ROOT) + " prompts built with the"
                        + " tokenizer " + config.tokenizer() + " to exact token lengths"
                        + (tokenizer.specialTokenCount() > 0 ? " (+" + tokenizer.specialTokenCount()
                        + " special tokens from its template)" : ""));
            }
            if (config.dataset().multiTurn() != null) {
                return ConversationRunner.run(config, new Transport(exec, io, flow), tokenizer, log, notes);
            }
            // a timed trace brings its own prompts and send offsets: they replace the arrival process for the run
            TimedTrace.Replay trace = traced == null ? null : TimedTrace.replay(config.dataset(), traced,
                    config.numWarmups(), config.seed(), tokensPerWord, tokenizer);
            int pool = trace != null ? trace.offsetsNs().length
                    : config.duration() == null ? config.numPrompts() : Math.max(config.numPrompts(), 1);
            List<Prompt> prompts = trace != null ? trace.prompts() : Datasets.load(config.dataset(),
                    pool + config.numWarmups(), config.seed(), tokensPerWord, tokenizer);
            String promptsSha256 = Datasets.digest(prompts);
            List<RequestExecutor.Prepared> prepared = new ArrayList<>(prompts.size());
            for (int i = 0; i < prompts.size(); i++) {
                prepared.add(exec.prepare(prompts.get(i), config.requestIdPrefix() + i));
            }
            if (config.numWarmups() > 0) {
                log.accept("loadgen: " + config.numWarmups() + " warm-up requests (discarded)");
                // through the measured phase's own dispatch, so that its code is compiled before the phase starts
                Sender warm = new Sender(io, flow, System.nanoTime(), Long.MAX_VALUE, new ArrayList<>());
                for (int i = 0; i < config.numWarmups(); i++) {
                    dispatch(warm, prepared.get(pool + i), -1, 0);
                }
                flow.awaitAll();
            }

            int n = trace != null ? pool : config.duration() == null ? config.numPrompts() : Integer.MAX_VALUE;
            long[] schedule = trace != null ? trace.offsetsNs()
                    : config.duration() == null ? Arrivals.schedule(config, n) : null;
            Arrivals open = config.duration() == null ? null
                    : new Arrivals(config.requestRate(), config.burstiness(), config.rampUp(), config.seed(),
                    Math.max(1, (int) Math.min(Integer.MAX_VALUE,
                            config.duration().toSeconds() * (Double.isInfinite(config.requestRate()) ? 1
                                    : config.requestRate()))));
            long durationNs = config.duration() == null ? Long.MAX_VALUE : config.duration().toNanos();
            String capText = "max concurrency " + (config.maxConcurrency() == null ? "none" : config.maxConcurrency());
            // a timed trace says how long its schedule is: a unit mistake shows before the run, not hours into it
            log.accept(trace != null ? "loadgen: sending " + n + " requests of the timed trace "
                    + config.dataset().path() + " to " + config.requestUri() + " over "
                    + String.format(Locale.ROOT, "%.3f", schedule[n - 1] / 1e9) + " s (speed-up "
                    + config.dataset().trace().speedup() + ", " + capText + ")"
                    : "loadgen: sending " + (config.duration() == null ? n + " requests" : "requests for "
                    + config.duration().toSeconds() + " s") + " to " + config.requestUri()
                    + " (rate " + (Double.isInfinite(config.requestRate()) ? "inf" : config.requestRate())
                    + ", burstiness " + config.burstiness() + ", " + capText + ")");

            CpuMeter.settle(io);
            measuredStart.run();
            List<RequestResult> results = new ArrayList<>();
            List<RequestResult[]> slotsOut = new ArrayList<>();
            Instant startedAt = Instant.now();
            CpuMeter meter = new CpuMeter(io);
            long t0 = System.nanoTime();
            Sender sender = new Sender(io, flow, t0, schedule == null ? durationNs : Long.MAX_VALUE, slotsOut);
            boolean scheduled = false; // an intended send after the phase start: the run has an arrival schedule
            for (int i = 0; i < n; i++) {
                long at;
                if (schedule != null) {
                    at = schedule[i];
                } else {
                    at = (long) (open.nextSeconds() * 1e9);
                    if (at >= durationNs) {
                        break;
                    }
                }
                scheduled |= at > 0;
                if (!dispatch(sender, prepared.get(i % pool), i, at)) {
                    break;
                }
            }
            flow.awaitAll();
            long t1 = System.nanoTime();
            LoadgenResult.ClientCpu cpu = meter.stop();
            long[] loopLag = meter.loopLagNs();
            for (RequestResult[] b : slotsOut) {
                if (b[0] != null) { // null: the --duration ended while it waited for a slot, so it was never sent
                    results.add(b[0]);
                }
            }
            double durS = (t1 - t0) / 1e9;
            return finish(config, new Measured(new LoadgenResult.Run(startedAt, t0, durS, config.numWarmups(),
                    promptsSha256), results, cpu, null, new FidelityCheck.Observed(scheduled, results, loopLag)),
                    notes, log);
        }
    }

    /**
     * How requests go out: prepared by {@code exec}, sent and read on the I/O loop {@code io}, paced by {@code flow}
     * (the dispatcher's side of the concurrency cap).
     */
    record Transport(RequestExecutor exec, EventLoop io, Flow flow) {
    }

    /**
     * What a measured phase produced, before it is summarized: when and how long it ran, its requests in send order,
     * the client's CPU over it, a multi-turn run's turns and conversations (else null), and what the client saw of
     * its own schedule and loop (null: no fidelity is reported).
     */
    record Measured(LoadgenResult.Run run, List<RequestResult> requests, LoadgenResult.ClientCpu cpu,
                    MultiTurnResult multiTurn, FidelityCheck.Observed observed) {
    }

    /** The summary, the notes it calls for and the result of a measured phase that ended. */
    static LoadgenResult finish(LoadgenConfig config, Measured phase, List<String> notes, Consumer<String> log) {
        double durS = phase.run().durationS();
        LoadgenResult.Summary s = RunSummary.of(config, phase.requests(), durS);
        if (s.completed() > 0 && s.outputFromUsage() < s.completed()) {
            notes.add((s.completed() - s.outputFromUsage()) + " of " + s.completed()
                    + " successful requests had no usage.completion_tokens: their output length is the chunk count");
        }
        if (s.completed() > 0 && s.inputFromUsage() < s.completed()) {
            notes.add((s.completed() - s.inputFromUsage()) + " of " + s.completed()
                    + " successful requests had no usage.prompt_tokens: their input length is the dataset's estimate");
        }
        if (s.promptDriftPct() != null && Math.abs(s.promptDriftPct()) > 5) {
            notes.add(String.format(Locale.ROOT,
                    "prompt lengths drift %.1f%% from the intended lengths (server-counted vs dataset); "
                            + "the server's counts are used", s.promptDriftPct()));
        }
        log.accept("loadgen: done: " + s.completed() + " ok, " + s.failed() + " failed in "
                + String.format(Locale.ROOT, "%.2f s", durS));
        LoadFidelity fidelity = phase.observed() == null ? null
                : FidelityCheck.of(config.fidelityLimits(), config.maxConcurrency(), phase);
        if (fidelity != null && fidelity.client().saturated()) {
            log.accept("loadgen: warning: the client was saturated, its numbers are the client's, not the server's: "
                    + String.join("; ", fidelity.client().reasons()));
        }
        return new LoadgenResult(config, phase.run(), phase.requests(), s, notes, phase.cpu(), phase.multiTurn(),
                fidelity);
    }

    /**
     * The client's own CPU from its construction to {@link #stop}: the process, its user/system split, the I/O thread;
     * and the event loop's lag ticks, with the JVM's GC pauses, since its construction ({@link #loopLagNs}).
     */
    static final class CpuMeter {
        /** The longest {@link #settle} waits for the JIT's compiles to end. */
        static final long SETTLE_MAX_MS = 1_000;
        private final EventLoop io;
        private final int lagMark;
        private final int pauseMark;
        private final long[] ticks0;
        private final long io0;
        private final long iou0;
        private final long cpu0;

        /** The meter starts: the process's CPU is read last, so the other reads are not counted in it. */
        CpuMeter(EventLoop io) {
            this.io = io;
            this.lagMark = io.loopLag.mark();
            this.pauseMark = JvmPauses.get().mark();
            this.ticks0 = procSelfTicks();
            this.io0 = io.threadCpuNs();
            this.iou0 = io.threadUserNs();
            this.cpu0 = processCpuNs();
        }

        /**
         * Just before a measured phase's meter starts: every read the meter makes, once, and the GC pause listeners
         * registered ({@link JvmPauses}; the first read of the platform's thread MXBean loads and links its management
         * classes: ~20 ms of the dispatcher's CPU), then a wait
         * of at most {@link #SETTLE_MAX_MS} until the process is quiet: under a tenth of a core over each of three
         * 10 ms polls. No request is in flight then, so what still runs is the JIT compiling what the warm-up and the
         * phase's set-up gave it (and a GC). Both were counted as the phase's CPU, a tenth of it in a 10 s phase at
         * 1,000 chunks/s, and the compiler ran on the client's core as the phase's first requests went out
         * (docs/loadgen.md, "Cost: the measured phase's start"). Returns the ms waited.
         */
        static long settle(EventLoop io) {
            JvmPauses.get();
            procSelfTicks();
            io.threadCpuNs();
            io.threadUserNs();
            return awaitQuiet(LoadGenerator::processCpuNs, SETTLE_MAX_MS);
        }

        /**
         * Parks in 10 ms polls until the process CPU clock {@code cpuNs} (-1: none, no wait) grew by at most a tenth
         * of the poll's own time in three polls in a row, or {@code maxMs} passed. Returns the ms waited.
         */
        static long awaitQuiet(LongSupplier cpuNs, long maxMs) {
            long start = System.nanoTime();
            long last = cpuNs.getAsLong();
            if (last < 0) {
                return 0;
            }
            int still = 0;
            while (still < 3 && System.nanoTime() - start < maxMs * 1_000_000L) {
                long t = System.nanoTime();
                LockSupport.parkNanos(10_000_000L);
                long now = cpuNs.getAsLong();
                still = now - last <= (System.nanoTime() - t) / 10 ? still + 1 : 0;
                last = now;
            }
            return (System.nanoTime() - start) / 1_000_000L;
        }

        /** The loop's tick lags (ns) recorded since the meter started, with the JVM's pauses since then. */
        long[] loopLagNs() {
            return LoopLag.withPauses(io.loopLag.since(lagMark), JvmPauses.get().since(pauseMark));
        }

        LoadgenResult.ClientCpu stop() {
            long cpu1 = processCpuNs();
            long io1 = io.threadCpuNs();
            long iou1 = io.threadUserNs();
            long[] ticks1 = procSelfTicks();
            boolean ticks = ticks0 != null && ticks1 != null;
            return new LoadgenResult.ClientCpu(cpu0 < 0 || cpu1 < 0 ? -1 : (cpu1 - cpu0) / 1e9,
                    ticks ? (ticks1[0] - ticks0[0]) / 100.0 : -1, ticks ? (ticks1[1] - ticks0[1]) / 100.0 : -1,
                    io0 < 0 || io1 < 0 ? -1 : (io1 - io0) / 1e9, iou0 < 0 || iou1 < 0 ? -1 : (iou1 - iou0) / 1e9,
                    io.transport());
        }
    }

    /**
     * CPU time of this whole process (all threads, user + system) in ns, or -1: to the nanosecond through libc where
     * its bindings exist, else the JDK's figure, which counts 10 ms clock ticks.
     */
    static long processCpuNs() {
        long ns = Libc.processCpuNs();
        if (ns >= 0) {
            return ns;
        }
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** utime and stime of this process in clock ticks (USER_HZ = 100 on Linux) from /proc/self/stat, or null. */
    static long[] procSelfTicks() {
        try {
            String st = Files.readString(Path.of("/proc/self/stat"));
            String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])}; // fields 14 and 15 of stat(5)
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * What {@link #dispatch} needs for every request of a run: the I/O loop, the flow control, the run's start
     * ({@code System.nanoTime}), how long requests may be sent (Long.MAX_VALUE: no limit) and where the result slots go.
     */
    private record Sender(EventLoop io, Flow flow, long t0, long durationNs, List<RequestResult[]> out) {
    }

    /**
     * Sends request {@code i} at {@code t0 + at} (a method of its own, so the JIT compiles the per-request step early
     * rather than leaving it to the interpreter inside the once-called {@link #run}); false when {@code durationNs}
     * has passed and nothing was sent. With a duration, a request still waiting for a connection slot when it ends is
     * dropped unsent by the I/O thread (as the dispatcher used to stop once a slot came too late).
     */
    private static boolean dispatch(Sender sender, RequestExecutor.Prepared p, int i, long at) {
        EventLoop io = sender.io();
        Flow flow = sender.flow();
        long t0 = sender.t0();
        long durationNs = sender.durationNs();
        List<RequestResult[]> out = sender.out();
        sleepUntil(t0 + at, flow);
        flow.beforeSubmit();
        if (System.nanoTime() - t0 >= durationNs) {
            flow.completed();
            return false;
        }
        RequestResult[] box = new RequestResult[1];
        out.add(box);
        Exchange x = new Exchange(i, p, t0, at, new Slot(box, flow));
        io.submit(durationNs == Long.MAX_VALUE ? x : x.startBy(t0 + durationNs));
        return true;
    }

    /**
     * Where a measured request's result goes: its slot, published to the dispatcher by {@link Flow#completed} (a
     * volatile write). A class, not a lambda: a lambda's first capture spins a class at the measured phase's start.
     */
    private record Slot(RequestResult[] box, Flow flow) implements Consumer<RequestResult> {
        @Override
        public void accept(RequestResult r) {
            box[0] = r;
            flow.completed();
        }
    }

    /**
     * Flow control between the dispatching thread and the I/O thread without a hand-off per request: the dispatcher
     * waits only when {@code high} requests are outstanding (submitted, not finished) and is woken once when they drop
     * to {@code low}, or to 0 in {@link #awaitAll}; the I/O thread pays one atomic decrement per finished request.
     * Should the I/O thread die ({@link #abort}) or the dispatcher be interrupted, the wait ends at once with
     * {@link Aborted}: the run fails with the reason, it never waits for requests nobody will finish.
     */
    static final class Flow {
        private final AtomicInteger outstanding = new AtomicInteger();
        private final int high;
        private final int low;
        private volatile int wakeAt = -1;
        private volatile Thread waiter;
        private volatile Throwable aborted;

        Flow(int high, int low) {
            this.high = high;
            this.low = Math.min(low, high - 1);
        }

        /** Dispatcher: called before each submit; blocks while {@code high} requests are outstanding. */
        void beforeSubmit() {
            check();
            if (outstanding.get() >= high) {
                await(low);
            }
            outstanding.incrementAndGet();
        }

        /** Dispatcher: blocks until every submitted request finished. */
        void awaitAll() {
            await(0);
        }

        private void await(int level) {
            waiter = Thread.currentThread();
            wakeAt = level;
            try {
                while (outstanding.get() > level) {
                    check();
                    LockSupport.parkNanos(this, 200_000_000L); // the wake-up is an unpark; this is a safety net
                }
            } finally {
                wakeAt = -1;
                waiter = null;
            }
        }

        /** I/O thread, as it dies: ends every wait of the dispatcher (allocates nothing: an OOM may be the cause). */
        void abort(Throwable cause) {
            aborted = cause;
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }

        void check() {
            Throwable t = aborted;
            if (t != null) {
                throw new Aborted("the I/O thread died (" + t + "); the run is void", t);
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new Aborted("interrupted (the run's time limit)", null);
            }
        }

        /** I/O thread: one request finished. */
        void completed() {
            int n = outstanding.decrementAndGet();
            if (n <= wakeAt) {
                Thread w = waiter;
                if (w != null) {
                    LockSupport.unpark(w);
                }
            }
        }
    }

    /**
     * The run ended before its requests did: the I/O thread died (an OutOfMemoryError…) or the run was interrupted at
     * its time limit. Nothing of the run is reported.
     */
    public static final class Aborted extends RuntimeException {
        Aborted(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Parks until the deadline; the last stretch spins on yield so arrivals land within microseconds. */
    static void sleepUntil(long deadline, Flow flow) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            flow.check();
            if (left > 200_000) {
                LockSupport.parkNanos(left - 100_000);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private static void waitReady(RequestExecutor exec, LoadgenConfig c, Consumer<String> log, List<String> notes) {
        long end = System.nanoTime() + c.readyCheckTimeout().toNanos();
        log.accept("loadgen: waiting up to " + c.readyCheckTimeout().toSeconds() + " s for " + c.baseUrl());
        while (System.nanoTime() < end) {
            if (exec.get("/health") == 200 || exec.get("/v1/models") == 200) {
                return;
            }
            LockSupport.parkNanos(500_000_000L);
        }
        notes.add("server did not answer /health or /v1/models within " + c.readyCheckTimeout().toSeconds() + " s");
    }

    /**
     * With no tokenizer at hand: asks the server's {@code /tokenize} (vLLM's API) how many tokens a sample of the
     * random vocabulary takes, so random prompts land near the intended length. 1.0 when the server has none.
     */
    private static double calibrate(RequestExecutor exec, LoadgenConfig c, Consumer<String> log, List<String> notes) {
        String sample = Datasets.words(new SplittableRandom(c.seed() + 1), 256);
        String body = exec.postJson("/tokenize", Map.of("model", c.model(), "prompt", sample));
        if (body == null) {
            return 1.0;
        }
        try {
            JsonNode n = new ObjectMapper().readTree(body);
            int count = n.has("count") ? n.get("count").asInt() : n.path("tokens").size();
            if (count <= 0) {
                return 1.0;
            }
            double r = count / 256.0;
            notes.add(String.format(Locale.ROOT,
                    "random prompts calibrated with the server's /tokenize: %.3f tokens per word", r));
            log.accept(String.format(Locale.ROOT, "loadgen: /tokenize says %.3f tokens per word", r));
            return r;
        } catch (IOException e) {
            return 1.0;
        }
    }
}
