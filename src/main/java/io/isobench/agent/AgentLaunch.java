package io.isobench.agent;

import java.util.List;
import java.util.Objects;

/**
 * What an adapter needs to build one attempt's invocation, with every path as the agent sees it (inside the
 * sandbox).
 *
 * @param cli          the agent CLI's executable
 * @param repoDir      the repository to edit (the sealed single-commit tree at the parent commit); the working
 *                     directory
 * @param homeDir      the agent's writable home (config files, caches); outside the repository
 * @param promptFile   the rendered prompt (a file in {@code homeDir})
 * @param prompt       the rendered prompt's text (the same text as the file; an adapter may pass it as one argv
 *                     element: no shell is involved)
 * @param model        the model name, or null for the CLI's default
 * @param baseUrl      the model endpoint the agent must use (inside a docker sandbox: the forwarded local port)
 * @param budget       the attempt's budget (the adapter passes what its CLI can enforce)
 * @param secretEnv    names of the environment variables that hold API keys (values never in argv)
 * @param argvTemplate the {@code command} adapter's argv template ({@code {repo}}, {@code {prompt_file}},
 *                     {@code {model}}, {@code {base_url}}, {@code {home}}); empty for the others
 */
public record AgentLaunch(String cli, String repoDir, String homeDir, String promptFile, String prompt, String model,
                          String baseUrl, Budget budget, List<String> secretEnv, List<String> argvTemplate) {
    public AgentLaunch {
        Objects.requireNonNull(cli, "cli");
        Objects.requireNonNull(repoDir, "repoDir");
        Objects.requireNonNull(homeDir, "homeDir");
        Objects.requireNonNull(promptFile, "promptFile");
        Objects.requireNonNull(prompt, "prompt");
        budget = budget == null ? Budget.NONE : budget;
        secretEnv = List.copyOf(secretEnv);
        argvTemplate = List.copyOf(argvTemplate);
    }
}
