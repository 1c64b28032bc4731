package io.isobench.agent;

import io.isobench.agent.ScriptedAnthropicServer.Script;
import io.isobench.agent.ScriptedAnthropicServer.Usage;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scripts for {@link ScriptedAnthropicServer} that drive the real Claude Code CLI (test code; reusable by the
 * local and docker sandbox tests). Paths are as the agent sees them (its working directory, the sealed repository).
 */
public final class ClaudeScripts {

    /** The toy engine's file the edit script changes. */
    public static final String EDIT_FILE = "toyllm/config.py";
    /** The line the edit script replaces (the idle engine loop's poll interval: the latency task's cause). */
    public static final String EDIT_OLD = "POLL_INTERVAL_S = 0.05";
    /** What it becomes: the idle loop looks for new requests 50 times as often. */
    public static final String EDIT_NEW = "POLL_INTERVAL_S = 0.001";
    /** The command the edit script runs after editing. */
    public static final String CHECK_COMMAND = "python3 -m compileall -q toyllm";
    /** The edit script's final message. */
    public static final String EDIT_DONE = "Lowered the idle engine loop's poll interval from 50 ms to 1 ms; "
            + "the engine still compiles.";

    private ClaudeScripts() {
    }

    /**
     * Read {@value #EDIT_FILE}, Edit {@value #EDIT_OLD} into {@value #EDIT_NEW}, run {@value #CHECK_COMMAND} with
     * Bash, finish with text: four turns with distinct usage (cache fields included).
     *
     * @param repoDir the repository as the agent sees it (Read and Edit take absolute paths)
     */
    public static Script edit(String repoDir) {
        String file = repoDir + "/" + EDIT_FILE;
        return Script.builder()
                .tool("I'll look at the engine's configuration first.", "Read", Map.of("file_path", file),
                        new Usage(1200, 41, 300, 0))
                .tool(null, "Edit", ordered("file_path", file, "old_string", EDIT_OLD, "new_string", EDIT_NEW,
                        "replace_all", false), new Usage(150, 87, 0, 1500))
                .tool("Checking that the engine still compiles.", "Bash",
                        ordered("command", CHECK_COMMAND, "description", "Compile the engine's modules"),
                        new Usage(90, 35, 40, 1800))
                .text(EDIT_DONE, new Usage(60, 29, 0, 1900))
                .build();
    }

    /**
     * {@code turns} tool turns that each run {@code echo turn N} with Bash, then a final text: more turns than a
     * small budget allows. Every turn reads {@code inputPerTurn} input tokens and writes 20 output tokens.
     */
    public static Script overrun(int turns, long inputPerTurn) {
        ScriptedAnthropicServer.Builder b = Script.builder();
        for (int i = 1; i <= turns; i++) {
            b.tool(null, "Bash", ordered("command", "echo turn " + i, "description", "Say which turn this is"),
                    new Usage(inputPerTurn, 20, 0, 0));
        }
        return b.text("All turns done.", new Usage(inputPerTurn, 10, 0, 0)).build();
    }

    /** One Bash call running {@code command} (e.g. a network escape), then a final text. */
    public static Script bash(String command) {
        return Script.builder()
                .tool("Trying the command.", "Bash", ordered("command", command, "description", "Run the command"),
                        new Usage(500, 30, 0, 0))
                .text("Done.", new Usage(600, 5, 0, 0))
                .build();
    }

    /** The network escape: {@link #bash} of {@link #fetchCommand} (prints the body, or fails with the error). */
    public static Script escape(String host, int port) {
        return bash(fetchCommand(host, port));
    }

    /**
     * A python3 one-liner that fetches {@code http://HOST:PORT/} and prints the body (a traceback when it cannot
     * connect). {@code ClaudeCodeAgentIT} serves {@code escaped} there from the host.
     */
    public static String fetchCommand(String host, int port) {
        return "python3 -c \"import urllib.request; print(urllib.request.urlopen('http://" + host + ":" + port
                + "/', timeout=10).read().decode())\"";
    }

    private static Map<String, Object> ordered(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
