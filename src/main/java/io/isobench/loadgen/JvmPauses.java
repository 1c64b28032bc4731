package io.isobench.loadgen;

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * This JVM's stop-the-world garbage-collection pauses as its collectors report them (one JMX notification per
 * collection, delivered on the JVM's notification thread): the event loop's own ticks cannot see a pause that falls
 * while the loop waits in its select, since the loop stamps its wake-up only once the pause has ended
 * ({@link LoopLag#withPauses}). Every collector's collections are pauses except those of a collector whose name ends
 * in {@code Cycles} (ZGC's and Shenandoah's concurrent cycles; their pauses have collectors of their own; G1's
 * {@code G1 Concurrent GC} reports its Remark and Cleanup pauses, not the concurrent cycle: checked with
 * {@code -Xlog:gc} on JDK 25, a 1 ms Remark reported as 1 ms beside a 47 ms cycle). Durations
 * are the collectors' whole milliseconds. Registered once per JVM, on first use; where the JVM has no such
 * notifications, nothing is recorded. Other safepoints (deoptimization, a thread dump) are not reported by any
 * supported interface and are not counted.
 */
final class JvmPauses {

    private static final JvmPauses INSTANCE = new JvmPauses();

    private long[] pauseNs = new long[64];
    private int n;

    private JvmPauses() {
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (!b.getName().endsWith("Cycles") && b instanceof NotificationEmitter e) {
                e.addNotificationListener((note, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(note.getType())) {
                        GarbageCollectionNotificationInfo info =
                                GarbageCollectionNotificationInfo.from((CompositeData) note.getUserData());
                        record(info.getGcInfo().getDuration() * 1_000_000L);
                    }
                }, null, null);
            }
        }
    }

    /** The JVM's recorder (its listeners are registered on the first call). */
    static JvmPauses get() {
        return INSTANCE;
    }

    private synchronized void record(long ns) {
        if (n == pauseNs.length) {
            pauseNs = Arrays.copyOf(pauseNs, n * 2);
        }
        pauseNs[n++] = ns;
    }

    /** Pauses reported so far (a phase's start). */
    synchronized int mark() {
        return n;
    }

    /** The durations (ns) of the pauses reported since {@code mark}. */
    synchronized long[] since(int mark) {
        return Arrays.copyOfRange(pauseNs, Math.min(mark, n), n);
    }
}
