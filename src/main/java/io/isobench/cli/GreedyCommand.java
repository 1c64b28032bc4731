package io.isobench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.IsobenchException;
import io.isobench.probe.Greedy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.Callable;

/**
 * {@code isobench greedy}: the correctness-check client on its own (used inside a Kubernetes pod, beside the arm's
 * server): the fixed prompts' greedy texts as one line {@code isobench-greedy-outputs: [JSON array]}, then the whole
 * probe run, sequential and concurrent pass ({@code Greedy.ProbeRun}), as {@code isobench-greedy-probe: {JSON}}.
 */
@Command(name = "greedy", mixinStandardHelpOptions = true,
        description = "Print the greedy completions of isobench's fixed check prompts from a running server, as one "
                + "line 'isobench-greedy-outputs: [...]', then every probe of both passes (one at a time, then at "
                + "least 8 at once) as 'isobench-greedy-probe: {...}' (the correctness gate's client, run in cluster "
                + "pods).")
final class GreedyCommand implements Callable<Integer> {

    static final String MARKER = "isobench-greedy-outputs: ";

    @ParentCommand
    Main main;

    @Option(names = "--base-url", required = true, paramLabel = "URL", description = "The server, e.g. http://127.0.0.1:8000.")
    String baseUrl;

    @Option(names = "--model", required = true, description = "Model name sent in each request.")
    String model;

    @Option(names = "--num-prompts", defaultValue = "8", description = "Prompts (default: ${DEFAULT-VALUE}).")
    int prompts;

    @Option(names = "--max-tokens", defaultValue = "32", description = "Tokens per completion (default: ${DEFAULT-VALUE}).")
    int maxTokens;

    @Override
    public Integer call() throws Exception {
        if (prompts < 1 || maxTokens < 1) {
            throw new IsobenchException.BadInput("--num-prompts and --max-tokens must be >= 1");
        }
        URI base;
        try {
            base = URI.create(baseUrl);
        } catch (IllegalArgumentException e) {
            throw new IsobenchException.BadInput("--base-url " + baseUrl + ": not a URL (e.g. http://127.0.0.1:8000)");
        }
        Greedy.ProbeRun probes;
        try {
            probes = Greedy.probe(base, model, prompts, maxTokens, false);
        } catch (IOException e) {
            main.err.println("isobench greedy: " + e.getMessage());
            main.err.flush();
            return 1;
        }
        main.out.println(MARKER + new ObjectMapper().writeValueAsString(probes.texts()));
        main.out.println(Greedy.PROBE_MARKER + probes.toJson());
        main.out.flush();
        return Main.OK;
    }
}
