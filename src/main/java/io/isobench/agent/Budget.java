package io.isobench.agent;

import java.util.Locale;
import java.util.Optional;

/**
 * An attempt's budget: wall time, model turns, tokens (input + output) and USD; null = no limit. Enforced twice:
 * by the adapter's own CLI flags where the CLI has them, and by isobench, which kills the attempt when the usage it
 * reads from the stream passes a limit ({@link AttemptStatus#BUDGET_EXCEEDED}) or the wall time runs out
 * ({@link AttemptStatus#AGENT_TIMEOUT}).
 */
public record Budget(Double wallS, Integer turns, Long tokens, Double usd) {

    public static final Budget NONE = new Budget(null, null, null, null);

    /** The first limit {@code u} has passed, as text ({@code "turns 12 > 10"}), or empty. */
    public Optional<String> exceeded(Usage u) {
        if (turns != null && u.turns() > turns) {
            return Optional.of("turns " + u.turns() + " > " + turns);
        }
        if (tokens != null && u.tokens() > tokens) {
            return Optional.of("tokens " + u.tokens() + " > " + tokens);
        }
        if (usd != null && u.costUsd() != null && u.costUsd() > usd) {
            return Optional.of(String.format(Locale.ROOT, "cost $%.4f > $%.4f", u.costUsd(), usd));
        }
        return Optional.empty();
    }
}
