package io.isobench.export;

import io.isobench.Arm;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One agent, one name: the published HF table names an agent by its tool and a separate model column ({@code trae} +
 * {@code gpt-5}) where the result trees name the pair ({@code trae_gpt5}, folder {@code omniperf_results_3way_trae_gpt5}).
 * This table, the only place the mapping is written (docs/hf-export.md lists it), turns an agent name and its model into
 * the result trees' name.
 *
 * <p>Rules: the agent name is normalised first ({@link Arm#normalizeAgent}); an agent the table does not list keeps its
 * name; a listed agent whose model matches one of its entries (case-insensitive, whole model id) gets that entry's name;
 * a listed agent whose model matches none keeps its name, and {@link Resolved#known} is false so the importer can say so.
 */
final class AgentAliases {

    /**
     * One entry: {@code agent} (normalised) with a model matching {@code model} is {@code canonical}.
     *
     * @param agent     the agent name as the HF table writes it, normalised
     * @param model     the agent's model ids this entry covers (whole id, lower case)
     * @param canonical the result trees' name
     */
    record Alias(String agent, Pattern model, String canonical) {
    }

    /**
     * The model ids as they appear in the published table ({@code gpt-5}, {@code sonnet-4.5}) and in the runs of the
     * agents ({@code gpt-5-2025-08-07}, {@code claude-sonnet-4-5-20250929}, {@code us.anthropic.claude-sonnet-4-5-…-v1:0},
     * a provider prefix such as {@code openai/}).
     */
    static final List<Alias> TABLE = List.of(
            new Alias("trae", Pattern.compile("(openai/)?gpt-?5(-\\d{4}-\\d{2}-\\d{2})?"), "trae_gpt5"),
            new Alias("trae", Pattern.compile("([a-z0-9]+[./-])*(claude-)?sonnet-?4[.-]5(-\\d{8})?(-v\\d+([:-]\\d+)?)?"),
                    "trae_sonnet45"));

    /**
     * The name an agent gets.
     *
     * @param name  the canonical name (the input, normalised, when no entry applies)
     * @param known false when the table lists the agent but no entry matches its model (the name was kept)
     */
    record Resolved(String name, boolean known) {
    }

    private AgentAliases() {
    }

    /** The canonical name of {@code agent} run with {@code model} (either may be null). */
    static Resolved resolve(String agent, String model) {
        String a = Arm.normalizeAgent(agent);
        if (a == null) {
            return new Resolved(null, true);
        }
        boolean listed = false;
        String m = model == null ? "" : model.trim().toLowerCase(Locale.ROOT);
        for (Alias alias : TABLE) {
            if (!alias.agent().equals(a)) {
                continue;
            }
            listed = true;
            if (alias.model().matcher(m).matches()) {
                return new Resolved(alias.canonical(), true);
            }
        }
        return new Resolved(a, !listed);
    }
}
