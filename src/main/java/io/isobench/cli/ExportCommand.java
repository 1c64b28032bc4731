package io.isobench.cli;

import picocli.CommandLine.Command;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Export results: the HuggingFace dataset (hf).",
        subcommands = {ExportHfCommand.class})
final class ExportCommand extends CommandGroup {
}
