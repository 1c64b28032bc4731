package io.isobench.task;

import java.util.Collections;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The executor names a suite's {@code run.executor} may give. The registry that knows them ({@code exec.Executors})
 * sits above this package, so it is found through {@link ServiceLoader}
 * ({@code META-INF/services/io.isobench.task.ExecutorNames}): a new executor kind is never named here.
 */
public interface ExecutorNames {

    /** The names this provider knows. */
    Set<String> names();

    /** Every known name, sorted; just {@code local} (the default) when no registry is on the class path. */
    static SortedSet<String> known() {
        return Known.NAMES;
    }

    /** Loaded once. */
    final class Known {
        private static final SortedSet<String> NAMES = load();

        private Known() {
        }

        private static SortedSet<String> load() {
            SortedSet<String> out = new TreeSet<>();
            ServiceLoader.load(ExecutorNames.class, ExecutorNames.class.getClassLoader())
                    .forEach(p -> out.addAll(p.names()));
            if (out.isEmpty()) {
                out.add(RunConfig.DEFAULT_EXECUTOR);
            }
            return Collections.unmodifiableSortedSet(out);
        }
    }
}
