package io.isobench.agent;

import io.isobench.agent.ScriptedOpenAiServer.Script;

/**
 * Scripted Codex conversations for {@link ScriptedOpenAiServer} (test data, reusable by any sandbox's IT): the toy
 * engine's {@code tpot} task done the human's way, budget overruns, and a sandbox escape attempt.
 */
public final class CodexScripts {

    /** The model the scripts are run with: a slug Codex 0.171 knows, so it declares its usual tools. */
    public static final String MODEL = "gpt-5.5";

    /** The file the edit script changes (relative to the repository). */
    public static final String EDITED_FILE = "toyllm/detokenizer.py";

    /**
     * The human {@code tpot} change (examples/toy-engine/patches/human/tpot.patch) in Codex's {@code apply_patch}
     * format: detokenize only the newest token instead of the whole output at every step.
     */
    public static final String TPOT_PATCH = """
            *** Begin Patch
            *** Update File: toyllm/detokenizer.py
            @@
                 def __init__(self, tokenizer: Tokenizer):
                     self.tokenizer = tokenizer
            +        self.special_ids = {tokenizer.bos_token_id, tokenizer.eos_token_id}
            \s
                 def decode_sequence(self, seq: Sequence) -> str:
            -        \"""Updates seq.output_text after a new token was appended; returns the new text.\"""
            -        text = self.tokenizer.decode(seq.output_token_ids)
            -        delta = text[len(seq.output_text):]
            -        seq.output_text = text
            +        \"""Updates seq.output_text after a new token was appended; returns the new text.
            +
            +        Only the newest token is converted: re-decoding the whole output at every step made
            +        detokenization quadratic in the output length. The result equals
            +        tokenizer.decode(seq.output_token_ids): a word piece's "\\u2581" becomes a space, and
            +        the space in front of the very first piece is dropped.
            +        \"""
            +        token_id = seq.output_token_ids[-1]
            +        if token_id in self.special_ids:
            +            return ""
            +        delta = self.tokenizer.convert_ids_to_tokens([token_id])[0].replace("\\u2581", " ")
            +        if not seq.output_text and delta.startswith(" "):
            +            delta = delta[1:]
            +        seq.output_text += delta
                     return delta
            *** End Patch
            """;

    /** The final message of the edit script. */
    public static final String EDIT_DONE = "Detokenization is incremental now: only the newest token is converted.";

    private CodexScripts() {
    }

    /**
     * Read the file, edit it, check it compiles, finish: 4 model turns with usage (in/out) 1200/80, 1500/420,
     * 2700/40, 2900/60.
     */
    public static Script edit() {
        return Script.builder()
                .usage(1200, 80).shell("sed -n 1,40p " + EDITED_FILE)
                .usage(1500, 420).applyPatch(TPOT_PATCH)
                .usage(2700, 40).shell("python3 -m compileall -q toyllm")
                .usage(2900, 60).text(EDIT_DONE)
                .build();
    }

    /** {@code shellTurns} harmless shell turns ({@code echo step N}) then a final message; each turn 1000 tokens in, 50 out. */
    public static Script overrun(int shellTurns) {
        return overrun(shellTurns, "echo step");
    }

    /**
     * {@code shellTurns} shell turns running {@code command} (with the turn's number appended) then a final message;
     * each turn 1000 tokens in, 50 out.
     */
    public static Script overrun(int shellTurns, String command) {
        Script.Builder b = Script.builder().usage(1000, 50);
        for (int i = 1; i <= shellTurns; i++) {
            b.shell(command + " " + i);
        }
        return b.text("done").build();
    }

    /** One shell turn running {@code command} (an escape attempt: read a host path, reach a host…), then a final message. */
    public static Script escape(String command) {
        return Script.builder().usage(1000, 50).shell(command).text(ESCAPE_DONE).build();
    }

    /** The final message of the escape script. */
    public static final String ESCAPE_DONE = "escape attempted";

    /**
     * The first shell command's result in {@code r}'s trajectory ({@code exit N (status)} then its output), or null
     * when none ran: what an escape test asserts on.
     */
    public static String firstCommandResult(AttemptResult r) {
        return r.trajectory().steps().stream().flatMap(s -> s.toolCalls().stream())
                .filter(c -> c.name().equals("exec_command")).map(Trajectory.ToolCall::resultSummary)
                .findFirst().orElse(null);
    }
}
