package io.isobench.loadgen;

/** One request's input: text, its intended length in tokens (-1 when unknown), and max output tokens. */
record Prompt(String text, int expectedInputTokens, int outputLen) {
}
