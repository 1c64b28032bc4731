package io.isobench.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Stops a docker sandbox's containers on a path the agent cannot starve (docs/agents.md, "Sandbox: limits"): a
 * helper process, started with the sandbox while file descriptors are plenty, waits on a pipe from this JVM; a kill is
 * one line written to that open pipe — no new file descriptor, no new process in this JVM — and the helper runs
 * {@code docker kill} and {@code docker rm -f} in its own process. {@link #stop} then checks with
 * {@code docker inspect} that the container is stopped or gone, and asks again (the helper and a direct
 * {@code docker kill}) until it is or the tries run out: a container it cannot prove stopped is reported, never
 * assumed. The pipe is also a dead man's switch: when this JVM ends in any way (exit, crash, SIGKILL), the helper
 * reads end-of-file and removes every container it was told about. Only names this sandbox generated
 * ({@code isobench-agent-} and 12 hex digits) are ever written to it.
 */
final class ContainerStopper implements AutoCloseable {

    /** The names of sandbox containers. */
    static final Pattern NAME = Pattern.compile("isobench-agent-[0-9a-f]{12}");

    /** What {@code docker inspect} says about a container. */
    enum State { GONE, STOPPED, RUNNING, UNKNOWN }

    /**
     * The helper: {@code start N} remembers N, {@code kill N} kills and removes N, {@code done N} forgets N,
     * {@code exit} leaves; at end-of-file every remembered container is removed. Names reach it only as lines on
     * its stdin and are matched against the sandbox's name pattern again before use.
     */
    private static final String SCRIPT = """
            docker=$1; names=
            while IFS= read -r line; do
              n=${line#* }
              case $n in isobench-agent-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]*) ;; *) n= ;; esac
              case $line in
                exit) exit 0 ;;
                "start "*) [ -n "$n" ] && names="$names $n" ;;
                "done "*) rest=; for x in $names; do [ "$x" = "$n" ] || rest="$rest $x"; done; names=$rest ;;
                "kill "*) [ -n "$n" ] && { "$docker" kill "$n"; "$docker" rm -f "$n"; } >/dev/null 2>&1 ;;
              esac
            done
            for x in $names; do "$docker" rm -f "$x" >/dev/null 2>&1; done
            """;

    private final String docker;
    private final Process helper;
    private final OutputStream pipe;

    private ContainerStopper(String docker, Process helper) {
        this.docker = docker;
        this.helper = helper;
        this.pipe = helper == null ? null : helper.getOutputStream();
    }

    /** Starts the helper (when it cannot start, {@link #stop} still runs {@code docker kill} directly). */
    static ContainerStopper start(String docker) {
        Process p;
        try {
            p = new ProcessBuilder("sh", "-c", SCRIPT, "isobench-container-stopper", docker)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            p = null;
        }
        return new ContainerStopper(docker, p);
    }

    /** Remembers {@code name}: removed when this JVM ends, however it ends. */
    void watch(String name) {
        send("start", name);
    }

    /** Forgets {@code name} (it is gone). */
    void forget(String name) {
        send("done", name);
    }

    /**
     * Stops {@code name}: each try asks the helper and runs {@code docker kill}/{@code rm -f} directly, then waits up
     * to {@code wait} for {@code docker inspect} to show it stopped or gone. True once it does; false when it still
     * runs (or cannot be inspected) after {@code tries} tries.
     */
    boolean stop(String name, int tries, Duration wait) {
        for (int i = 0; i < tries; i++) {
            send("kill", name); // cannot fail for lack of file descriptors: the pipe is open
            AgentImage.exec(List.of(docker, "kill", name), Duration.ofSeconds(30), Map.of());
            AgentImage.exec(List.of(docker, "rm", "-f", name), Duration.ofSeconds(30), Map.of());
            long end = System.nanoTime() + wait.toNanos();
            do {
                State s = state(name);
                if (s == State.GONE || s == State.STOPPED) {
                    forget(name);
                    return true;
                }
                EgressBodies.sleepQuietly(100);
            } while (System.nanoTime() < end);
        }
        return false;
    }

    /** What {@code docker inspect} says about {@code name} ({@link State#UNKNOWN}: it could not be asked). */
    State state(String name) {
        AgentImage.Out o = AgentImage.exec(List.of(docker, "container", "inspect", "--format", "{{.State.Running}}",
                name), Duration.ofSeconds(30), Map.of());
        if (o.code() == 0) {
            return o.text().strip().equals("false") ? State.STOPPED : State.RUNNING;
        }
        return o.text().contains("No such") ? State.GONE : State.UNKNOWN;
    }

    private synchronized void send(String verb, String name) {
        if (pipe == null || !NAME.matcher(name).matches()) {
            return;
        }
        try {
            pipe.write((verb + " " + name + "\n").getBytes(StandardCharsets.US_ASCII));
            pipe.flush();
        } catch (IOException e) {
            // the helper is gone: the direct docker kill and the verification still run
        }
    }

    /** Lets the helper go without removing anything (the sandbox has stopped its containers itself). */
    @Override
    public synchronized void close() {
        if (pipe == null) {
            return;
        }
        try (OutputStream o = pipe) {
            o.write("exit\n".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            // gone already
        }
        helper.destroy();
    }
}
