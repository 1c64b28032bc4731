package io.isobench.plan;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The host-wide GPU lease with two holders: a second JVM (a child process running {@link Holder}) and this one. A GPU
 * the child holds is refused here with one line naming it and the child's pid, other GPUs are picked around it, and
 * the lock is free again once the child is killed (the OS releases it). Within one JVM a second claim is refused
 * without the {@code OverlappingFileLockException} the JDK would throw.
 */
class HostGpuLocksTest {

    @TempDir
    Path dir;

    /** Holds GPUs {@code args[1..]} of lock folder {@code args[0]}, prints "held", waits for stdin to close. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            HostGpuLocks locks = new HostGpuLocks(Path.of(args[0]));
            List<Integer> ids = Arrays.stream(args).skip(1).map(Integer::valueOf).toList();
            try (HostGpuLocks.Held h = locks.tryLock(ids, "test holder").orElseThrow()) {
                System.out.println("held " + h.ids());
                System.out.flush();
                System.in.read();
            }
        }
    }

    private Process child(Path locks, int... ids) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> argv = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                Holder.class.getName(), locks.toString()));
        for (int id : ids) {
            argv.add(Integer.toString(id));
        }
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        assertThat(r.readLine()).startsWith("held");
        return p;
    }

    @Test
    void aGpuAnotherProcessHoldsIsRefusedWithItsPidAndFreedWhenItDies() throws Exception {
        Path folder = dir.resolve("gpu-locks");
        Process other = child(folder, 1);
        try {
            HostGpuLocks here = new HostGpuLocks(folder);
            assertThat(here.heldElsewhere(1)).isTrue();
            assertThat(here.heldElsewhere(0)).isFalse();
            assertThat(here.tryLock(List.of(0, 1), "me")).isEmpty();
            assertThat(here.heldElsewhere(0)).as("a refused claim holds nothing").isFalse();
            assertThatThrownBy(() -> here.acquire(List.of(1), Duration.ZERO, "me"))
                    .isInstanceOf(HostGpuLocks.Busy.class)
                    .hasMessageContaining("GPU 1 by pid " + other.pid() + " (test holder, since ")
                    .hasMessageContaining("ISOBENCH_GPU_LOCK_WAIT_S")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            try (HostGpuLocks.Held h = here.acquireAny(List.of(0, 1, 2, 3), 2, Duration.ZERO, "me")) {
                assertThat(h.ids()).as("an aligned free block around the held GPU").containsExactly(2, 3);
            }
            try (HostGpuLocks.Held h = here.acquireAny(List.of(0, 1, 2, 3), 1, Duration.ZERO, "me")) {
                assertThat(h.ids()).containsExactly(0);
                assertThat(Files.readString(folder.resolve("gpu-0.lock")))
                        .startsWith("pid=" + ProcessHandle.current().pid() + "\t");
            }
            assertThatThrownBy(() -> here.acquireAny(List.of(0, 1), 2, Duration.ZERO, "me"))
                    .isInstanceOf(HostGpuLocks.Busy.class).hasMessageContaining("GPU 1 by pid " + other.pid());
        } finally {
            other.destroyForcibly();
            other.waitFor(30, TimeUnit.SECONDS);
        }
        HostGpuLocks here = new HostGpuLocks(folder);
        assertThat(here.heldElsewhere(1)).as("the OS released the dead holder's lock").isFalse();
        try (HostGpuLocks.Held h = here.acquire(List.of(1), Duration.ZERO, "me")) {
            assertThat(h.ids()).containsExactly(1);
        }
    }

    @Test
    void aSecondClaimInThisJvmIsRefusedAndAReleasedGpuIsFreeAgain() throws Exception {
        HostGpuLocks a = new HostGpuLocks(dir);
        HostGpuLocks b = new HostGpuLocks(dir);
        HostGpuLocks.Held h = a.tryLock(List.of(0, 1), "first").orElseThrow();
        assertThat(b.tryLock(List.of(1), "second")).isEmpty();
        assertThat(b.heldElsewhere(0)).isTrue();
        assertThat(a.tryLock(List.of(2), "third")).isPresent().get().satisfies(HostGpuLocks.Held::close);
        h.close();
        h.close(); // idempotent
        assertThat(b.heldElsewhere(0)).isFalse();
        assertThat(Files.readString(dir.resolve("gpu-0.lock"))).as("the holder line goes with the lock").isEmpty();
        try (HostGpuLocks.Held again = b.tryLock(List.of(0, 1), "second").orElseThrow()) {
            assertThat(again.ids()).containsExactly(0, 1);
        }
    }

    @Test
    void theFolderAndTheWaitComeFromTheEnvironment() {
        assertThat(HostGpuLocks.forHost(Map.of("ISOBENCH_STATE_DIR", dir.toString())).dir())
                .isEqualTo(dir.resolve("gpu-locks"));
        assertThat(HostGpuLocks.forHost(Map.of()).dir())
                .isEqualTo(Path.of(System.getProperty("user.home"), ".isobench", "gpu-locks"));
        assertThat(HostGpuLocks.waitFrom(Map.of())).isEqualTo(Duration.ofSeconds(600));
        assertThat(HostGpuLocks.waitFrom(Map.of("ISOBENCH_GPU_LOCK_WAIT_S", "5"))).isEqualTo(Duration.ofSeconds(5));
        assertThatThrownBy(() -> HostGpuLocks.waitFrom(Map.of("ISOBENCH_GPU_LOCK_WAIT_S", "-1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void slotsCarryTheHostLocksOnlyWhenAsked() {
        GpuSlots plain = GpuSlots.of(2);
        assertThat(plain.hostLocks()).isNull();
        HostGpuLocks locks = new HostGpuLocks(dir);
        assertThat(GpuSlots.of(2).withHostLocks(locks).hostLocks()).isSameAs(locks);
    }
}
