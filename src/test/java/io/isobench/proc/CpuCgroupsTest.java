package io.isobench.proc;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-run cgroups v2 (issue 26, item 7): {@code cpu.stat} read, the hierarchy found from recorded
 * {@code /proc/self/mountinfo} and {@code /proc/self/cgroup} texts (hybrid, unified, a container's namespace, read-only,
 * v1 only), leftovers of dead JVMs cleared, the fallback where no cgroup can be made, and on a machine with a writable
 * hierarchy a real process counted and its escaped child killed on close.
 */
class CpuCgroupsTest {

    @TempDir
    Path dir;

    /** This machine's (hybrid: v1 controllers, the v2 hierarchy at /sys/fs/cgroup/unified), abridged. */
    static final String HYBRID = """
            31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
            33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
            40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
            41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
            """;
    static final String HYBRID_SELF = """
            9:name=systemd:/
            4:memory:/process_api/9a538cad649d31b39afccf3f31f20d65
            2:cpuacct:/
            1:cpu:/
            0::/
            """;
    /** A systemd machine with the unified layout. */
    static final String UNIFIED = """
            22 1 0:21 / /sys ro,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
            26 22 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate
            """;

    @Test
    void usageIsReadFromCpuStat() {
        assertThat(CpuCgroups.usageUsec("usage_usec 277984\nuser_usec 70540\nsystem_usec 207444\nnice_usec 0\n"))
                .hasValue(277984);
        assertThat(CpuCgroups.usageUsec("user_usec 70540\nsystem_usec 207444\nusage_usec 12\n")).hasValue(12);
        assertThat(CpuCgroups.usageUsec("user_usec 70540\n")).isEmpty();
        assertThat(CpuCgroups.usageUsec("")).isEmpty();
    }

    @Test
    void theHierarchyIsFoundFromMountinfoAndTheProcessesOwnCgroup() {
        assertThat(CpuCgroups.locate(HYBRID, HYBRID_SELF)).hasValue(Path.of("/sys/fs/cgroup/unified"));
        assertThat(CpuCgroups.locate(UNIFIED, "0::/user.slice/user-1000.slice/session-2.scope\n"))
                .hasValue(Path.of("/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope"));
        // a bind mount of a subtree (root field not /): the path below the mount's root
        String bound = "50 40 0:23 /kubepods/pod1 /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n";
        assertThat(CpuCgroups.locate(bound, "0::/kubepods/pod1/c2\n")).hasValue(Path.of("/sys/fs/cgroup/c2"));
        assertThat(CpuCgroups.locate(bound, "0::/system.slice\n")).as("outside the mounted subtree").isEmpty();
        // mountinfo escapes a space as \040
        String spaced = "41 31 0:38 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw\n";
        assertThat(CpuCgroups.locate(spaced, "0::/a\n")).hasValue(Path.of("/mnt/cg two/a"));
    }

    @Test
    void noWritableHierarchyIsNone() {
        String readOnly = "26 22 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n";
        assertThat(CpuCgroups.locate(readOnly, "0::/\n")).as("a container's read-only cgroupfs").isEmpty();
        assertThat(CpuCgroups.locate(HYBRID.replace("cgroup2 cgroup2", "cgroup cgroup"), HYBRID_SELF))
                .as("cgroup v1 only").isEmpty();
        assertThat(CpuCgroups.locate(HYBRID, "4:memory:/x\n")).as("no 0:: line").isEmpty();
        assertThat(CpuCgroups.locate(UNIFIED, "0::/../../system.slice\n")).as("outside the namespace's root")
                .isEmpty();
        assertThat(CpuCgroups.locate("", "0::/\n")).isEmpty();
    }

    @Test
    void withoutAHierarchyThereAreNoCgroupsAndTheReasonIsKept() throws Exception {
        Path mountinfo = Files.writeString(dir.resolve("mountinfo"), HYBRID.replace("cgroup2 cgroup2", "cgroup x"));
        Path self = Files.writeString(dir.resolve("cgroup"), HYBRID_SELF);
        CpuCgroups none = CpuCgroups.discover(mountinfo, self, 42);
        assertThat(none.available()).isFalse();
        assertThat(none.unavailableReason()).startsWith("no writable cgroup v2 holds this process");
        assertThat(CpuCgroups.discover(dir.resolve("absent"), self, 42).unavailableReason()).startsWith("cannot read");
        // a folder that is no cgroup: the probe finds no cpu.stat, and leaves nothing behind
        Path plain = Files.createDirectory(dir.resolve("plain"));
        CpuCgroups fake = CpuCgroups.tried(plain, 42, pid -> false);
        assertThat(fake.available()).isFalse();
        assertThat(fake.unavailableReason()).endsWith("cpu.stat has no usage_usec");
        try (var left = Files.list(plain)) {
            assertThat(left).isEmpty();
        }
        try (var unused = none.open()) {
            throw new AssertionError("opened without a hierarchy");
        } catch (IOException e) {
            assertThat(e.getMessage()).startsWith("no cgroup v2: no writable cgroup v2");
        }
    }

    /** Leftovers of a SIGKILLed JVM are removed when empty; a live JVM's, a busy one and strangers' stay. */
    @Test
    void emptyLeftoversOfDeadJvmsAreRemoved() throws Exception {
        Path dead = Files.createDirectory(dir.resolve("isobench-900001-3"));
        Path busy = Files.createDirectories(dir.resolve("isobench-900001-4/child"));
        Path live = Files.createDirectory(dir.resolve("isobench-900002-1"));
        Path mine = Files.createDirectory(dir.resolve("isobench-7-1"));
        Path stranger = Files.createDirectory(dir.resolve("isobench-web"));
        CpuCgroups.removeLeftovers(dir, 7, pid -> pid == 900002);
        assertThat(dead).doesNotExist();
        assertThat(busy).exists();
        assertThat(live).exists();
        assertThat(mine).as("this JVM's own").exists();
        assertThat(stranger).exists();
    }

    /**
     * On a machine with a writable hierarchy (CI runs as root): a process that joins the run's cgroup is counted to the
     * µs, and one it left behind in a session of its own is killed when the cgroup is closed, which removes it.
     */
    @Test
    void aRealRunIsCountedAndWhatItLeftBehindIsKilledOnClose() throws Exception {
        CpuCgroups host = CpuCgroups.host();
        SharedData.requireService(host.available(), "a writable cgroup v2 for the µs CPU clock: "
                + host.unavailableReason());
        Path cg;
        long sleeper;
        try (CpuCgroups.Run run = host.open()) {
            cg = run.dir();
            assertThat(cg.getFileName().toString()).matches("isobench-" + ProcessHandle.current().pid() + "-\\d+");
            assertThat(run.usageUsec()).hasValue(0);
            Path pidFile = dir.resolve("pid");
            Process p = new ProcessBuilder("sh", "-c", "echo $$ >\"$1/cgroup.procs\"; setsid sleep 60 & echo $! >\"$2\";"
                    + " i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", "sh", cg.toString(), pidFile.toString())
                    .inheritIO().start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            OptionalLong used = run.usageUsec();
            assertThat(used).isPresent();
            assertThat(used.getAsLong()).as("the loop's CPU, in µs").isGreaterThan(1000);
            sleeper = Long.parseLong(Files.readString(pidFile).strip());
            assertThat(ProcessHandle.of(sleeper).map(ProcessHandle::isAlive)).hasValue(true);
        }
        assertThat(cg).doesNotExist();
        assertThat(gone(sleeper)).as("the escaped sleep was killed").isTrue();
    }

    /** No such process, or a zombie its new parent has not reaped yet. */
    private static boolean gone(long pid) throws Exception {
        Path stat = Path.of("/proc/" + pid + "/stat");
        for (int i = 0; i < 100; i++) {
            try {
                String s = Files.readString(stat);
                if (s.substring(s.lastIndexOf(')') + 2).startsWith("Z")) {
                    return true;
                }
            } catch (IOException e) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }
}
