package io.isobench.loadgen;

import java.util.function.Consumer;

/**
 * One request on its way through the {@link EventLoop}: what to send, when it was due, and where its result goes
 * ({@code done} is called on the loop thread). Its timing fields are the loop's to write.
 */
final class Exchange {
    final int index;
    final RequestExecutor.Prepared req;
    final long t0;
    final long scheduledNs;
    final Consumer<RequestResult> done;
    long send;
    /**
     * When a concurrency slot was free for it (System.nanoTime), or {@link Long#MIN_VALUE} when one was free as it
     * arrived at the loop: written by the loop as it starts the request.
     */
    long slotFree = Long.MIN_VALUE;
    long deadline;
    boolean retried;
    final RequestExecutor.Outcome o;

    /** When true, the request is not sent once {@code startByNs} has passed (a --duration run's end). */
    boolean bounded;
    long startByNs;

    /**
     * Request {@code index} ({@code -1}: a warm-up), due {@code scheduledNs} after the phase start {@code t0}
     * ({@code System.nanoTime}).
     */
    Exchange(int index, RequestExecutor.Prepared req, long t0, long scheduledNs, Consumer<RequestResult> done) {
        this.index = index;
        this.req = req;
        this.t0 = t0;
        this.scheduledNs = scheduledNs;
        this.done = done;
        this.o = new RequestExecutor.Outcome(req.keepText(), LoadgenConfig.maxChunks(req.prompt().outputLen()));
    }

    /**
     * Still waiting for a connection slot at {@code startByNs} (System.nanoTime), the request is dropped unsent and
     * {@code done} gets null. Set before {@link EventLoop#submit}.
     */
    Exchange startBy(long startByNs) {
        this.bounded = true;
        this.startByNs = startByNs;
        return this;
    }
}
