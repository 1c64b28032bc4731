package io.isobench.cli;

import io.isobench.IsobenchException;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "table", mixinStandardHelpOptions = true, description = "(being built)")
final class TableCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new IsobenchException.EnvironmentMissing("'table' is not implemented yet");
    }
}
