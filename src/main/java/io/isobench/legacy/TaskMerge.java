package io.isobench.legacy;

import io.isobench.store.TaskRecord;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Merges the task facts a legacy file shows with those already known (stored or seen earlier in the import). */
final class TaskMerge {

    private static final Pattern GPU_COUNT = Pattern.compile(":(\\d+)\\s*$");

    private TaskMerge() {
    }

    static void putTask(Map<String, TaskRecord> toStore, Extractor.TaskInfo t, String pathCommit,
                                Map<String, TaskRecord> seen) {
        String commit = t.commit() != null ? t.commit().toLowerCase(Locale.ROOT) : pathCommit;
        if (commit == null) {
            return;
        }
        String id = commit.substring(0, Math.min(8, commit.length()));
        TaskRecord o = seen.get(id); // every stored task was read when the import began
        Integer gpus = null;
        String gpuConfig = pick(t.gpuConfig(), o == null ? null : o.gpuConfig());
        if (gpuConfig != null) {
            Matcher m = GPU_COUNT.matcher(gpuConfig);
            if (m.find()) {
                gpus = Integer.parseInt(m.group(1));
            }
        }
        String full = longer(commit, o == null ? null : o.commit());
        TaskRecord merged = TaskRecord.builder(id).repo(pick(o == null ? null : o.repo(), t.repo()))
                .commit(full, pick(o == null ? null : o.parentCommit(), t.parent()))
                .subject(longer(t.subject(), o == null ? null : o.subject()))
                .perfCommand(pick(o == null ? null : o.perfCommand(), t.perfCommand()))
                .model(pick(o == null ? null : o.model(), t.model()))
                .gpus(gpuConfig, gpus != null ? gpus : o == null ? null : o.gpuCount()).build();
        if (!merged.equals(o)) {
            toStore.put(id, merged);
        }
        seen.put(id, merged);
    }

    private static String pick(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }

    private static String longer(String a, String b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return b.length() > a.length() ? b : a;
    }
}
