package io.isobench.agent;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The suite's one prompt template (docs/agents.md, "The prompt"): the same for every agent and attempt of a suite,
 * its sha256 recorded on each attempt with the rendered prompt's. Placeholders: {@code {task_id}},
 * {@code {perf_command}}, {@code {metric}}, {@code {better}} ({@code lower} or {@code higher}), {@code {repo}} (the
 * repository as the agent sees it) and {@code {hint}} (empty under the hint policy {@code none}; the human commit's
 * subject line under {@code subject}).
 */
public record PromptTemplate(String text, Hints hints) {

    /** What the agent is told about the human's change: nothing, or the commit's subject line. */
    public enum Hints {
        NONE, SUBJECT;

        public static Hints parse(String s) {
            return switch (s == null ? "none" : s) {
                case "none" -> NONE;
                case "subject" -> SUBJECT;
                default -> throw new IllegalArgumentException("hints '" + s + "' (fix: none or subject)");
            };
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The default template (docs/agents.md quotes it). */
    public static final String DEFAULT = """
            You are working in the repository at {repo}: an LLM inference engine, checked out at one commit.

            Task {task_id}: make this benchmark faster without changing what the engine computes.

                {perf_command}

            The benchmark's target metric is {metric} ({better} is better). Change the engine's source code
            only: do not edit the benchmark scripts, their inputs or defaults, and do not special-case the
            benchmark's prompts. Outputs must stay the same (greedy decoding is compared token by token).
            {hint}
            Work in the repository directly; your changes are collected with `git diff` when you finish.
            Do not commit. Stop when you are done.
            """;

    public PromptTemplate {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(hints, "hints");
    }

    public static PromptTemplate defaults() {
        return new PromptTemplate(DEFAULT, Hints.NONE);
    }

    /** sha256 of the template text (hex). */
    public String sha256() {
        return sha256(text);
    }

    /**
     * The prompt for one task.
     *
     * @param subject the human commit's subject line (used only under {@link Hints#SUBJECT})
     */
    public String render(String taskId, String perfCommand, String metric, boolean lowerIsBetter, String repo,
                         String subject) {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("{task_id}", taskId);
        v.put("{perf_command}", perfCommand == null ? "" : perfCommand.strip());
        v.put("{metric}", metric == null ? "the task's primary metric" : metric);
        v.put("{better}", lowerIsBetter ? "lower" : "higher");
        v.put("{repo}", repo);
        v.put("{hint}", hints == Hints.SUBJECT && subject != null && !subject.isBlank()
                ? "Hint: the change to make is described as: " + subject.strip() + "\n" : "");
        String out = text;
        for (Map.Entry<String, String> e : v.entrySet()) {
            out = out.replace(e.getKey(), e.getValue());
        }
        return out;
    }

    public static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
