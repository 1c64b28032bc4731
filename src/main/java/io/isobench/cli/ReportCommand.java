package io.isobench.cli;

import io.isobench.IsobenchException;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "report", mixinStandardHelpOptions = true, description = "(being built)")
final class ReportCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new IsobenchException.EnvironmentMissing("'report' is not implemented yet");
    }
}
