package io.isobench.task;

import io.isobench.parse.MetricRule;
import io.isobench.parse.ReadRule;
import io.isobench.parse.Readout;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a task of the generic engine adapter ({@code engine.name: generic}) is measured, declared in the suite with no
 * engine-specific code: either an offline command whose metrics are read by declared rules, or a server measured by
 * isobench's load generator. Exactly one of {@code offline} and {@code serving} is set.
 */
public record GenericTask(Offline offline, Serving serving) {

    /** Placeholders every generic argv may use (resolved by the planner). */
    public static final List<String> PLACEHOLDERS = List.of("{workdir}", "{suite_dir}");
    /** Placeholders of a server argv. */
    public static final List<String> SERVER_PLACEHOLDERS = List.of("{host}", "{port}", "{model}", "{workdir}",
            "{suite_dir}");

    public GenericTask {
        if ((offline == null) == (serving == null)) {
            throw new IllegalArgumentException("a generic task is either offline or serving");
        }
    }

    /**
     * An offline command (argv, run without a shell in the arm's environment).
     *
     * @param command the argv; {@code {workdir}} and {@code {suite_dir}} are filled in by the planner
     * @param metrics the declared metric rules, in suite order (built-in metrics are not listed)
     * @param primary the primary metric: a declared rule's name, {@link MetricRule#WALL} or {@link MetricRule#CPU}
     * @param output  where the generated text is, for the correctness gate; null: the task has no gate
     * @param probe   the command whose output the gate reads; null: {@code command} itself
     */
    public record Offline(List<String> command, List<MetricRule> metrics, String primary, ReadRule output,
                          List<String> probe) {
        public Offline {
            command = List.copyOf(command);
            metrics = List.copyOf(metrics);
            probe = probe == null ? null : List.copyOf(probe);
            Objects.requireNonNull(primary, "primary");
            if (command.isEmpty()) {
                throw new IllegalArgumentException("offline command must not be empty");
            }
        }

        /** The readout of a measured run. */
        public Readout readout() {
            return new Readout(metrics, primary, null);
        }

        /** The argv a correctness check runs. */
        public List<String> probeCommand() {
            return probe != null ? probe : command;
        }
    }

    /**
     * A server measured by isobench's load generator.
     *
     * @param server  the server argv; {@code {host} {port} {model} {workdir} {suite_dir}} filled in by the planner
     *                and the executor ({@code {port}} must be present)
     * @param client  the load generator's workload in {@code vllm bench serve} flag names
     * @param model   the model name the server serves (sent with every request)
     * @param primary the primary metric: a metric of the load generator ({@code tpot_ms_mean} by default)
     */
    public record Serving(List<String> server, List<String> client, String model, String primary) {
        public Serving {
            server = List.copyOf(server);
            client = List.copyOf(client);
            Objects.requireNonNull(primary, "primary");
        }

        /** The client flags as the load generator takes them, with the model. */
        public ClientConfig clientConfig() {
            List<ClientConfig.Flag> flags = new ArrayList<>();
            flags.add(new ClientConfig.Flag("--model", model == null ? "model" : model));
            flags.addAll(ClientConfig.ofArgv(client).flags());
            return new ClientConfig(flags);
        }
    }

    /** The measured argv: the offline command, or the server. */
    public List<String> argv() {
        return offline != null ? offline.command() : serving.server();
    }

    /** One line for the store and reports (the argv joined; words with spaces quoted). */
    public String display() {
        List<String> words = new ArrayList<>();
        for (String w : argv()) {
            words.add(w.isEmpty() || w.matches(".*[\\s'\"\\\\$`].*") ? "'" + w.replace("'", "'\\''") + "'" : w);
        }
        return String.join(" ", words);
    }
}
