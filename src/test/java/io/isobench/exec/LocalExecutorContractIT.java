package io.isobench.exec;

import io.isobench.SharedData;

/** The executor contract on the local executor (process groups on this machine). */
class LocalExecutorContractIT extends ExecutorContract {

    @Override
    protected void requireEnvironment() {
        SharedData.requireService(Cli.has("python3") && Cli.has("git") && Cli.has("setsid"),
                "python3, git and setsid (util-linux) for the local executor");
    }

    @Override
    protected Executor executor() {
        return Executors.create("local");
    }

    @Override
    protected String executorName() {
        return "local";
    }
}
