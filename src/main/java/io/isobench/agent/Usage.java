package io.isobench.agent;

/**
 * What an attempt has used: model turns (assistant responses), input and output tokens (input includes cached
 * input), and cost in USD (null when the agent does not report one).
 */
public record Usage(int turns, long tokensIn, long tokensOut, Double costUsd) {

    public static final Usage NONE = new Usage(0, 0, 0, null);

    public long tokens() {
        return tokensIn + tokensOut;
    }

    public Usage plus(int moreTurns, long moreIn, long moreOut, Double moreUsd) {
        Double usd = costUsd == null ? moreUsd
                : moreUsd == null ? costUsd : Double.valueOf(costUsd + moreUsd); // boxed: no unboxing of a null
        return new Usage(turns + moreTurns, tokensIn + moreIn, tokensOut + moreOut, usd);
    }

    public Usage withCostUsd(Double usd) {
        return new Usage(turns, tokensIn, tokensOut, usd);
    }
}
