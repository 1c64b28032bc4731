package io.isobench.cli;

import io.isobench.export.HfExporter;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "hf", mixinStandardHelpOptions = true,
        description = {"Write the HuggingFace dataset: data/train-00000-of-00001.parquet, its JSONL twin and README.md.",
                "One row per (commit, agent): the 76 schema-v5 columns, then isobench_* columns."})
final class ExportHfCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder to write (created if absent).")
    Path out;

    @Override
    public Integer call() {
        Main main = (Main) spec.root().userObject();
        try (Store store = Stores.open(main.dbSpec())) {
            HfExporter.Summary s = HfExporter.export(store, out);
            main.err.println(s.describe());
            main.out.println(out.resolve(HfExporter.PARQUET));
            main.out.println(out.resolve(HfExporter.JSONL));
            main.out.println(out.resolve(HfExporter.CARD));
        }
        return Main.OK;
    }
}
