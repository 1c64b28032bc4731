package io.isobench.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Export results: the HuggingFace dataset (hf).",
        subcommands = {ExportHfCommand.class})
final class ExportCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
