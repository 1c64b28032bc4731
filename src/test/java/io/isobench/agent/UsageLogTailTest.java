package io.isobench.agent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link UsageLogTail} hands over complete lines of JSONL files appearing and growing under a folder. */
class UsageLogTailTest {

    @Test
    void followsNewFilesInSubfoldersLineByLineAndKeepsPartialLinesForLater(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("sessions");
        List<String> got = new CopyOnWriteArrayList<>();
        UsageLogTail tail = UsageLogTail.start(dir, got::add);
        Path f = dir.resolve("2026/11/27/rollout-1.jsonl");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "{\"a\":1}\n{\"b\":\"é");
        Files.writeString(dir.resolve("2026/notes.txt"), "not a log\n");
        waitFor(got, 1);
        assertEquals(List.of("{\"a\":1}"), got);
        Files.writeString(f, "\"}\n{\"c\":3}\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        waitFor(got, 3);
        tail.stop();
        assertEquals(List.of("{\"a\":1}", "{\"b\":\"é\"}", "{\"c\":3}"), got);
    }

    @Test
    void aLineLongerThanTheReadLimitIsSkippedAndLaterLinesStillCount(@TempDir Path tmp) throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        UsageLogTail tail = UsageLogTail.start(tmp, got::add);
        Path f = tmp.resolve("rollout.jsonl");
        byte[] huge = new byte[UsageLogTail.MAX_LINE + 1000];
        Arrays.fill(huge, (byte) 'x');
        Files.writeString(f, "{\"a\":1}\n");
        Files.write(f, huge, StandardOpenOption.APPEND);
        Files.writeString(f, "\n{\"b\":2}\n", StandardOpenOption.APPEND);
        waitFor(got, 2);
        tail.stop();
        assertEquals(List.of("{\"a\":1}", "{\"b\":2}"), got);
    }

    @Test
    void stopReadsWhatWasWrittenLast(@TempDir Path tmp) throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        UsageLogTail tail = UsageLogTail.start(tmp, got::add);
        Files.writeString(tmp.resolve("x.jsonl"), "one\ntwo\n");
        tail.stop();
        assertEquals(List.of("one", "two"), got);
    }

    @Test
    void atLeastRaisesEachCount() {
        assertEquals(new Usage(3, 20, 7, 0.5),
                AttemptRunner.atLeast(new Usage(3, 10, 7, 0.5), new Usage(1, 20, 2, null)));
    }

    @Test
    void usagePlusKeepsAnUnknownCostUnknown() {
        assertEquals(new Usage(1, 2, 3, null), Usage.NONE.plus(1, 2, 3, null));
        assertEquals(0.75, new Usage(0, 0, 0, 0.5).plus(0, 0, 0, 0.25).costUsd());
        assertEquals(0.5, new Usage(0, 0, 0, 0.5).plus(1, 0, 0, null).costUsd());
        assertEquals(0.25, Usage.NONE.plus(0, 0, 0, 0.25).costUsd());
    }

    private static void waitFor(List<String> got, int n) throws InterruptedException {
        for (int i = 0; i < 100 && got.size() < n; i++) {
            Thread.sleep(50);
        }
    }
}
