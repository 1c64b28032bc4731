package io.isobench.loadgen;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Reference;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Optional;

/**
 * libc's functions as method handles of primitive types, looked up once by reflection (the source stays Java 21).
 * {@link #UNAVAILABLE} says why there are none (a JDK before 22, another OS or architecture, native access denied).
 */
final class Libc {
    static final MethodHandle SOCKET, CONNECT, SETSOCKOPT, GETSOCKOPT, EPOLL_CREATE1, EPOLL_CTL, EPOLL_WAIT,
            READ, SEND, WRITE_PLAIN, CLOSE, EVENTFD, TIMERFD_CREATE, TIMERFD_SETTIME, FOPEN, FILENO, FCLOSE,
            PREAD, CLOCK_GETTIME, EPOLL_WAIT_PLAIN, READ_HEAP, OF_BUFFER, ADDRESS, OF_ARRAY;
    static final String UNAVAILABLE;

    static {
        MethodHandle[] h = new MethodHandle[24];
        String why = null;
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (Runtime.version().feature() < 22) {
            why = "the JDK is " + Runtime.version().feature() + " (java.lang.foreign needs 22 or later)";
        } else if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("aarch64"))) {
            why = "not Linux on x86-64 or AArch64 (" + os + ", " + arch + ")";
        } else {
            try {
                link(h);
            } catch (Throwable t) {
                why = "java.lang.foreign could not link libc (" + t + ")";
            }
        }
        SOCKET = h[0];
        CONNECT = h[1];
        SETSOCKOPT = h[2];
        GETSOCKOPT = h[3];
        EPOLL_CREATE1 = h[4];
        EPOLL_CTL = h[5];
        EPOLL_WAIT = h[6];
        READ = h[7];
        SEND = h[8];
        WRITE_PLAIN = h[9];
        CLOSE = h[10];
        EVENTFD = h[11];
        TIMERFD_CREATE = h[12];
        TIMERFD_SETTIME = h[13];
        FOPEN = h[14];
        FILENO = h[15];
        FCLOSE = h[16];
        PREAD = h[17];
        CLOCK_GETTIME = h[18];
        EPOLL_WAIT_PLAIN = h[19];
        READ_HEAP = h[20];
        OF_BUFFER = h[21];
        ADDRESS = h[22];
        OF_ARRAY = h[23];
        UNAVAILABLE = why;
    }

    private Libc() {
    }

    private static void link(MethodHandle[] h) throws ReflectiveOperationException {
        Class<?> layoutC = Class.forName("java.lang.foreign.MemoryLayout");
        Class<?> valueC = Class.forName("java.lang.foreign.ValueLayout");
        Class<?> segC = Class.forName("java.lang.foreign.MemorySegment");
        Class<?> fdC = Class.forName("java.lang.foreign.FunctionDescriptor");
        Class<?> linkerC = Class.forName("java.lang.foreign.Linker");
        Class<?> optionC = Class.forName("java.lang.foreign.Linker$Option");
        Class<?> lookupC = Class.forName("java.lang.foreign.SymbolLookup");
        Object i32 = valueC.getField("JAVA_INT").get(null);
        Object i64 = valueC.getField("JAVA_LONG").get(null);
        Object linker = linkerC.getMethod("nativeLinker").invoke(null);
        Object lookup = linkerC.getMethod("defaultLookup").invoke(linker);
        Method find = lookupC.getMethod("find", String.class);
        Method of = fdC.getMethod("of", layoutC, Array.newInstance(layoutC, 0).getClass());
        Method downcall = linkerC.getMethod("downcallHandle", segC, fdC, Array.newInstance(optionC, 0).getClass());
        Object errno = optionC.getMethod("captureCallState", String[].class).invoke(null, (Object) new String[] {"errno"});
        Object critical = optionC.getMethod("critical", boolean.class).invoke(null, false);
        // critical and allowed a Java array (a heap segment) as a pointer argument
        Object heap = optionC.getMethod("critical", boolean.class).invoke(null, true);
        Object ptr = valueC.getField("ADDRESS").get(null);
        // (result, args...) with the errno capture (a leading segment, passed as an Object) or without; crit: null, or
        // the critical option (non-blocking calls: no thread-state transition); a pointer argument is passed as Object
        record Fn(String name, boolean capture, Object crit, Object ret, Object... args) { }
        Fn[] fns = {
            new Fn("socket", true, null, i32, i32, i32, i32),
            new Fn("connect", true, null, i32, i32, i64, i32),
            new Fn("setsockopt", true, null, i32, i32, i32, i32, i64, i32),
            new Fn("getsockopt", true, null, i32, i32, i32, i32, i64, i64),
            new Fn("epoll_create1", false, null, i32, i32),
            new Fn("epoll_ctl", true, null, i32, i32, i32, i32, i64),
            new Fn("epoll_wait", true, null, i32, i32, i64, i32, i32),
            // non-blocking sockets: read and send never block, so they skip the thread-state transition
            new Fn("read", true, critical, i64, i32, i64, i64),
            new Fn("send", true, critical, i64, i32, i64, i64, i32),
            new Fn("write", false, null, i64, i32, i64, i64),
            new Fn("close", false, null, i32, i32),
            new Fn("eventfd", false, null, i32, i32, i32),
            new Fn("timerfd_create", false, null, i32, i32, i32),
            new Fn("timerfd_settime", false, null, i32, i32, i32, i64, i64),
            new Fn("fopen", false, null, i64, i64, i64),
            new Fn("fileno", false, null, i32, i64),
            new Fn("fclose", false, null, i32, i64),
            // a procfs file: pread never blocks, and a failure needs no errno (the caller gives up on the figures)
            new Fn("pread", false, critical, i64, i32, i64, i64, i64),
            new Fn("clock_gettime", false, null, i32, i32, i64),
            // without the errno capture, whose checks showed in perf at every wake-up: a failed wait is asked again
            // through EPOLL_WAIT, which says why (FfmPoller#select)
            new Fn("epoll_wait", false, null, i32, i32, i64, i32, i32),
            // read straight into a Java array (#segment(byte[])), without the errno capture: a failed read is asked
            // again through READ, which says why (FfmPoller.FfmSock#read)
            new Fn("read", false, heap, i64, i32, ptr, i64),
        };
        for (int i = 0; i < fns.length; i++) {
            Fn f = fns[i];
            Object args = Array.newInstance(layoutC, f.args().length);
            for (int k = 0; k < f.args().length; k++) {
                Array.set(args, k, f.args()[k]);
            }
            Object desc = of.invoke(null, f.ret(), args);
            Object opts = Array.newInstance(optionC, (f.capture() ? 1 : 0) + (f.crit() != null ? 1 : 0));
            int o = 0;
            if (f.capture()) {
                Array.set(opts, o++, errno);
            }
            if (f.crit() != null) {
                Array.set(opts, o, f.crit());
            }
            Object sym = ((Optional<?>) find.invoke(lookup, f.name()))
                    .orElseThrow(() -> new NoSuchMethodException("libc has no " + f.name()));
            MethodHandle m = (MethodHandle) downcall.invoke(linker, sym, desc, opts);
            // MemorySegment parameters (the errno capture, a pointer) as Objects: callers compiled for Java 21 cannot
            // name the type
            int lead = f.capture() ? 1 : 0;
            if (f.capture()) {
                m = m.asType(m.type().changeParameterType(0, Object.class));
            }
            for (int k = 0; k < f.args().length; k++) {
                if (f.args()[k] == ptr) {
                    m = m.asType(m.type().changeParameterType(lead + k, Object.class));
                }
            }
            h[i] = m;
        }
        MethodHandle ofBuffer = MethodHandles.publicLookup()
                .findStatic(segC, "ofBuffer", MethodType.methodType(segC, Buffer.class));
        h[21] = ofBuffer.asType(MethodType.methodType(Object.class, ByteBuffer.class));
        h[23] = MethodHandles.publicLookup().findStatic(segC, "ofArray", MethodType.methodType(segC, byte[].class));
        MethodHandle address = MethodHandles.publicLookup()
                .findVirtual(segC, "address", MethodType.methodType(long.class));
        h[22] = MethodHandles.filterReturnValue(ofBuffer, address)
                .asType(MethodType.methodType(long.class, ByteBuffer.class));
    }

    /**
     * CPU time of this whole process (all its threads, those that ended included) in ns, to the nanosecond
     * ({@code CLOCK_PROCESS_CPUTIME_ID}); -1 without the bindings. The JDK's own figure counts clock ticks (10 ms).
     */
    static long processCpuNs() {
        if (UNAVAILABLE != null) {
            return -1;
        }
        ByteBuffer ts = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        try {
            int rc = (int) CLOCK_GETTIME.invokeExact(2 /* CLOCK_PROCESS_CPUTIME_ID */, address(ts));
            return rc != 0 ? -1 : ts.getLong(0) * 1_000_000_000L + ts.getLong(8);
        } catch (Throwable t) {
            return -1;
        } finally {
            Reference.reachabilityFence(ts); // only its address went to libc
        }
    }

    /** The Java array {@code a} as a memory segment, for {@link #READ_HEAP} (an Object: Java 21 cannot name the type). */
    static Object segment(byte[] a) {
        try {
            return (Object) OF_ARRAY.invoke(a);
        } catch (Throwable t) {
            throw new IllegalStateException(t.toString(), t);
        }
    }

    /** The direct buffer {@code b} as a memory segment (an Object: Java 21 cannot name the type). */
    static Object segment(ByteBuffer b) {
        try {
            return (Object) OF_BUFFER.invokeExact(b);
        } catch (Throwable t) {
            throw new IllegalStateException(t.toString(), t);
        }
    }

    /** The native address of the direct buffer {@code b}. */
    static long address(ByteBuffer b) {
        try {
            return (long) ADDRESS.invokeExact(b);
        } catch (Throwable t) {
            throw new IllegalStateException(t.toString(), t);
        }
    }
}
