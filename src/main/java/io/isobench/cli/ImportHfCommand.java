package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.export.HfImporter;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "hf", mixinStandardHelpOptions = true,
        description = {"Import the published HF table (schema v5, 76 columns) from parquet, JSONL or CSV.",
                "Each file is one transaction; importing the same file again changes nothing.",
                "A list cell that is no readable list is kept as text (one warning per column on stderr);",
                "agents are renamed by the alias table (trae + gpt-5 = trae_gpt5), see docs/hf-export.md."})
final class ImportHfCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "HF table: .parquet, .jsonl or .csv")
    List<Path> files;

    @Override
    public Integer call() {
        Main main = (Main) spec.root().userObject();
        int code = Main.OK;
        try (Store store = Stores.open(main.dbSpec())) {
            for (Path file : files) {
                try {
                    HfImporter.Summary summary = HfImporter.importFile(store, file);
                    main.out.println(summary.describe());
                    for (String w : summary.warnings()) {
                        main.err.println("isobench: warning: " + file + ": " + w);
                    }
                } catch (IsobenchException.BadInput e) {
                    if (files.size() == 1) {
                        throw e;
                    }
                    main.err.println("isobench: " + e.getMessage());
                    code = Main.BAD_INPUT;
                }
            }
        }
        return code;
    }
}
