package io.isobench.loadgen;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The measured phase of a multi-turn run ({@code --multi-turn}): conversations start on the arrival schedule (one
 * arrival = one conversation's first turn), and each later turn is sent the moment the previous reply has ended,
 * with the conversation so far as its context. {@code --max-concurrency} caps requests in flight, as for single
 * turns; a conversation has at most one request in flight, and a turn that finds the cap reached waits in the client
 * (its wait is its client queue time: send − the previous reply's end).
 *
 * <p>The next turn is built and submitted by the I/O thread in the previous turn's completion, so no thread hand-off
 * sits between a reply's end and the next turn's send. A failed turn ends its conversation (the later turns are not
 * sent: the context would lack the reply).
 */
final class ConversationRunner {

    private ConversationRunner() {
    }

    static LoadgenResult run(LoadgenConfig config, LoadGenerator.Transport wire, BpeTokenizer tokenizer,
                             Consumer<String> log, List<String> notes) {
        RequestExecutor exec = wire.exec();
        EventLoop io = wire.io();
        LoadGenerator.Flow flow = wire.flow();
        int n = config.numPrompts();
        Conversations.Loaded loaded = Conversations.load(config.dataset(), n + config.numWarmups(), config.seed(),
                tokenizer);
        List<Conversations.Conversation> all = loaded.conversations();
        String digest = Conversations.digest(all);
        int turns = 0;
        for (int i = 0; i < n; i++) {
            turns += all.get(i).turns().size();
        }
        notes.add(String.format(Locale.ROOT, "multi-turn: %d conversations, %d turns (%.2f per conversation); each turn"
                + " after the previous reply, with the conversation so far as context", n, turns, (double) turns / n));
        AtomicInteger seq = new AtomicInteger();
        int warmupRequests = 0;
        if (config.numWarmups() > 0) {
            log.accept("loadgen: " + config.numWarmups() + " warm-up conversations (discarded)");
            long w0 = System.nanoTime();
            Context warm = new Context(exec, io, flow, w0, seq);
            List<Conv> ws = new ArrayList<>();
            for (int i = 0; i < config.numWarmups(); i++) {
                flow.beforeSubmit();
                Conv c = new Conv(warm, -1 - i, all.get(n + i));
                ws.add(c);
                c.send(0, 0);
            }
            flow.awaitAll();
            for (Conv c : ws) {
                warmupRequests += c.results.size();
            }
            seq.set(0);
        }
        long[] schedule = Arrivals.schedule(config, n);
        log.accept("loadgen: starting " + n + " conversations (" + turns + " turns) on " + config.requestUri()
                + " (conversation rate " + (Double.isInfinite(config.requestRate()) ? "inf" : config.requestRate())
                + ", burstiness " + config.burstiness() + ", max concurrency "
                + (config.maxConcurrency() == null ? "none" : config.maxConcurrency()) + ")");
        LoadGenerator.CpuMeter.settle(io);
        Instant startedAt = Instant.now();
        LoadGenerator.CpuMeter meter = new LoadGenerator.CpuMeter(io);
        long t0 = System.nanoTime();
        Context ctx = new Context(exec, io, flow, t0, seq);
        List<Conv> convs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            LoadGenerator.sleepUntil(t0 + schedule[i], flow);
            flow.beforeSubmit();
            Conv c = new Conv(ctx, i, all.get(i));
            convs.add(c);
            c.send(0, schedule[i]);
        }
        flow.awaitAll();
        long t1 = System.nanoTime();
        LoadgenResult.ClientCpu cpu = meter.stop();
        long[] loopLag = meter.loopLagNs();
        record Sent(RequestResult r, int turn, int conversation) {
        }
        List<Sent> sent = new ArrayList<>();
        List<MultiTurnResult.ConversationResult> done = new ArrayList<>(n);
        List<RequestResult> starts = new ArrayList<>(n);
        for (Conv c : convs) {
            starts.add(c.results.get(0));
            int ok = 0;
            for (int k = 0; k < c.results.size(); k++) {
                RequestResult r = c.results.get(k);
                sent.add(new Sent(r, k + 1, c.id));
                ok += r.success() ? 1 : 0;
            }
            RequestResult first = c.results.get(0);
            RequestResult last = c.results.get(c.results.size() - 1);
            done.add(new MultiTurnResult.ConversationResult(c.id, c.conv.source(), c.conv.turns().size(), ok,
                    first.sendNs(), last.endNs()));
        }
        sent.sort(Comparator.comparingInt(s -> s.r().index()));
        List<RequestResult> results = new ArrayList<>(sent.size());
        List<Integer> turnOf = new ArrayList<>(sent.size());
        List<Integer> convOf = new ArrayList<>(sent.size());
        for (Sent s : sent) {
            results.add(s.r());
            turnOf.add(s.turn());
            convOf.add(s.conversation());
        }
        MultiTurnResult mt = new MultiTurnResult(done, turnOf, convOf, loaded.fileSha256());
        LoadgenResult.Run run = new LoadgenResult.Run(startedAt, t0, (t1 - t0) / 1e9, warmupRequests, digest);
        // conversation starts are the schedule's arrivals; a later turn is due when the previous reply ended
        boolean scheduled = !Double.isInfinite(config.requestRate()) || config.rampUp() != null;
        return LoadGenerator.finish(config, new LoadGenerator.Measured(run, results, cpu, mt,
                new FidelityCheck.Observed(scheduled, starts, loopLag)), notes, log);
    }

    /** What every conversation of a phase shares: the transport, the flow control, the phase's start, the numbering. */
    private record Context(RequestExecutor exec, EventLoop io, LoadGenerator.Flow flow, long t0, AtomicInteger seq) {
    }

    /** One conversation in flight: the model's replies so far and each turn's result (I/O thread after the first). */
    private static final class Conv {
        final Context ctx;
        final int id;
        final Conversations.Conversation conv;
        final List<String> replies = new ArrayList<>();
        final List<RequestResult> results = new ArrayList<>();

        Conv(Context ctx, int id, Conversations.Conversation conv) {
            this.ctx = ctx;
            this.id = id;
            this.conv = conv;
        }

        /** Sends turn {@code k} (0-based), due at {@code scheduledNs} after the phase start. */
        void send(int k, long scheduledNs) {
            Conversations.Turn turn = conv.turns().get(k);
            RequestExecutor exec = ctx.exec();
            List<Map<String, String>> messages = exec.config().chat() ? Conversations.messages(conv, replies, k) : null;
            String text = exec.config().chat() ? turn.human() : Conversations.prompt(conv, replies, k);
            RequestExecutor.Prepared p = exec.prepare(new Prompt(text, -1, turn.outputLen()), messages,
                    exec.config().requestIdPrefix() + (id < 0 ? "warmup" + (-1 - id) : id) + "-" + (k + 1), true);
            ctx.io().submit(new Exchange(ctx.seq().getAndIncrement(), p, ctx.t0(), scheduledNs, this::done));
        }

        /** I/O thread: a turn ended; the next one goes out at once, or the conversation is over. */
        private void done(RequestResult r) {
            results.add(r);
            int next = results.size();
            if (r.success() && next < conv.turns().size()) {
                replies.add(r.generatedText());
                try {
                    send(next, r.endNs());
                    return;
                } catch (RuntimeException e) {
                    // cannot happen with a body that serialized for the first turn; never leave the run waiting
                    e.printStackTrace();
                }
            }
            ctx.flow().completed();
        }
    }
}
