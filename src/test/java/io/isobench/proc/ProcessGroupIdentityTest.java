package io.isobench.proc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A group is ours only when its leader's start time and marker (or argv) match, or a member carries the marker. */
class ProcessGroupIdentityTest {

    @TempDir
    Path dir;

    @Test
    void ourGroupIsReapedAStrangersIsNot() throws Exception {
        Path log = dir.resolve("log");
        // the leader starts a grandchild and exits: the group lives on in the grandchild, which carries the marker
        ProcessGroup pg = ProcessGroup.start(List.of("sh", "-c", "sleep 300 & sleep 0.3; echo started"), dir, Map.of(), log);
        ProcessGroup.Identity id = pg.identity();
        assertThat(id.startTicks()).isPositive();
        assertThat(pg.waitFor(Duration.ofSeconds(10))).isZero();
        assertThat(ProcessGroup.members(id.pgid())).isNotEmpty();
        ProcessGroup.Identity reloaded = ProcessGroup.Identity.fromMap(id.toMap()).orElseThrow();
        assertThat(reloaded).isEqualTo(id);

        ProcessGroup.Identity forged = new ProcessGroup.Identity(id.pgid(), id.startTicks(), id.argv(), "feed");
        assertThat(ProcessGroup.owner(forged)).isEqualTo(ProcessGroup.Owner.FOREIGN);
        assertThat(ProcessGroup.reap(forged, Duration.ofSeconds(1))).isEqualTo(ProcessGroup.Owner.FOREIGN);
        assertThat(ProcessGroup.members(id.pgid())).isNotEmpty();

        assertThat(ProcessGroup.reap(reloaded, Duration.ofSeconds(2))).isEqualTo(ProcessGroup.Owner.OURS);
        assertThat(ProcessGroup.members(id.pgid())).isEmpty();
        assertThat(ProcessGroup.owner(reloaded)).isEqualTo(ProcessGroup.Owner.GONE);
        assertThat(Files.readString(log)).contains("started");
    }

    @Test
    void aLeaderWithAnotherStartTimeIsAStranger() throws Exception {
        ProcessGroup pg = ProcessGroup.start(List.of("sleep", "300"), dir, Map.of(), dir.resolve("log"));
        try {
            ProcessGroup.Identity id = pg.identity();
            assertThat(ProcessGroup.owner(id)).isEqualTo(ProcessGroup.Owner.OURS);
            ProcessGroup.Identity recycled = new ProcessGroup.Identity(id.pgid(), id.startTicks() - 1, id.argv(),
                    id.marker());
            assertThat(ProcessGroup.reap(recycled, Duration.ofSeconds(1))).isEqualTo(ProcessGroup.Owner.FOREIGN);
            assertThat(pg.leaderAlive()).isTrue();
        } finally {
            assertThat(pg.terminate(Duration.ofSeconds(2))).isTrue();
        }
        assertThat(ProcessGroup.launched(pg.pgid())).isEmpty();
    }
}
