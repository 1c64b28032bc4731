package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.SyntheticStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.util.Locale;
import java.util.concurrent.Callable;

/** Fills a store with synthetic runs for the benchmarks (bench/foundation). Hidden: not a user feature. */
@Command(name = "synth", hidden = true, mixinStandardHelpOptions = true,
        description = "Fill the store with synthetic runs (tasks × 3 arms × rounds) for benchmarks.")
final class SynthCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Option(names = "--tasks", defaultValue = "100000", description = "Tasks (default ${DEFAULT-VALUE}).")
    int tasks;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds per arm (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--seed", defaultValue = "42", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public Integer call() {
        if (tasks < 1 || rounds < 1) {
            throw new IsobenchException.BadInput("--tasks (" + tasks + ") and --rounds (" + rounds + ") must be >= 1");
        }
        try (Store store = Stores.open(main.dbSpec())) {
            SyntheticStore.Result r = SyntheticStore.generate(store, tasks, rounds, seed);
            main.out.printf(Locale.ROOT, "%d tasks, %d runs, %d metrics in %d ms into %s%n",
                    r.tasks(), r.runs(), r.metrics(), r.elapsedMs(), store.describe());
        }
        return Main.OK;
    }
}
