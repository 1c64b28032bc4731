package io.isobench.cli;

import io.isobench.IsobenchException;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "export", mixinStandardHelpOptions = true, description = "(being built)")
final class ExportCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new IsobenchException.EnvironmentMissing("'export' is not implemented yet");
    }
}
