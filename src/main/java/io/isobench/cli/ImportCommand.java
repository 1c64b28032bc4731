package io.isobench.cli;

import picocli.CommandLine.Command;

@Command(name = "import", mixinStandardHelpOptions = true,
        description = "Import results: old ISO-Bench result trees (legacy) or the published HF table (hf).",
        subcommands = {
                ImportLegacyCommand.class,
                ImportHfCommand.class,
        })
final class ImportCommand extends CommandGroup {
}
