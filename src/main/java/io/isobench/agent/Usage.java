package io.isobench.agent;

/**
 * What an attempt has used: model turns (assistant responses), input and output tokens (input includes cached
 * input), and cost in USD (null when the agent does not report one). Never negative: a count below zero or a cost
 * that is negative, NaN or infinite is refused ({@link IllegalArgumentException}) wherever it comes from.
 */
public record Usage(int turns, long tokensIn, long tokensOut, Double costUsd) {

    public static final Usage NONE = new Usage(0, 0, 0, null);

    public Usage {
        if (turns < 0 || tokensIn < 0 || tokensOut < 0
                || costUsd != null && (costUsd.isNaN() || costUsd.isInfinite() || costUsd < 0)) {
            throw new IllegalArgumentException("impossible usage: " + turns + " turns, " + tokensIn + "+" + tokensOut
                    + " tokens, $" + costUsd + " (counts and cost are never negative)");
        }
    }

    public long tokens() {
        return tokensIn + tokensOut;
    }

    public Usage plus(int moreTurns, long moreIn, long moreOut, Double moreUsd) {
        Double usd;
        if (costUsd == null) {
            usd = moreUsd;
        } else if (moreUsd == null) {
            usd = costUsd;
        } else {
            usd = costUsd + moreUsd;
        }
        return new Usage(turns + moreTurns, tokensIn + moreIn, tokensOut + moreOut, usd);
    }

    public Usage withCostUsd(Double usd) {
        return new Usage(turns, tokensIn, tokensOut, usd);
    }
}
