package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Claude Code's stream-json output read into a {@link Trajectory} ({@link ClaudeCodeAdapter#parse}): the
 * {@code system/init} line becomes a system step (so do API retries and the CLI's own error messages, which it prints
 * as assistant lines of model {@code <synthetic>}), every assistant message (printed as one or more {@code assistant}
 * lines with the same message id) one agent step with its text, tool calls and tokens, every {@code tool_result}
 * of a {@code user} line the result summary of its call, other user text a user step; the {@code result} line is
 * kept for the status. A step's input tokens are those of its model call; its output tokens are known only when a
 * line of the message came after the message's end ({@code stop_reason} set): the CLI prints each content block as it
 * completes, with the usage of {@code message_start} (output 1 or so), so they are usually absent, and the exact
 * totals come from the {@code result} line. Lines that are not JSON, and line types it does not know, are skipped.
 *
 * @param trajectory    the normalised steps
 * @param streamedUsage usage summed from the assistant lines (once per message id)
 * @param result        the {@code result} line, or null when none came
 */
record ClaudeTranscript(Trajectory trajectory, Usage streamedUsage, JsonNode result) {

    /** A step being built. */
    private static final class StepDraft {
        final String source;
        final String messageId;
        final StringBuilder text = new StringBuilder();
        final List<String[]> calls = new ArrayList<>();
        Long tokensIn;
        /** Output tokens as printed; the step's only when the line came after the message's end. */
        Long tokensOut;
        long outSeen;

        StepDraft(String source, String messageId) {
            this.source = source;
            this.messageId = messageId;
        }

        void addText(String t) {
            if (t == null || t.isBlank()) {
                return;
            }
            if (!text.isEmpty()) {
                text.append("\n\n");
            }
            text.append(t.strip());
        }

        Trajectory.Step build() {
            List<Trajectory.ToolCall> tc = new ArrayList<>();
            for (String[] c : calls) {
                tc.add(new Trajectory.ToolCall(c[0], c[1], c[2], Trajectory.summary(c[3])));
            }
            return new Trajectory.Step(source, text.toString(), tc, tokensIn, tokensOut);
        }
    }

    static ClaudeTranscript read(String stdout) {
        List<StepDraft> steps = new ArrayList<>();
        Map<String, StepDraft> byMessage = new HashMap<>();
        Map<String, String[]> callsById = new LinkedHashMap<>();
        JsonNode result = null;
        Usage streamed = Usage.NONE;
        for (String line : stdout.split("\n", -1)) {
            JsonNode o = ClaudeCodeAdapter.readLine(line);
            if (o == null) {
                continue;
            }
            switch (o.path("type").asText()) {
                case "system" -> {
                    if (o.path("subtype").asText().equals("init")) {
                        StepDraft s = new StepDraft("system", null);
                        s.addText("Claude Code " + o.path("claude_code_version").asText("?") + ", model "
                                + o.path("model").asText("?") + ", permission mode "
                                + o.path("permissionMode").asText("?") + ", " + o.path("tools").size()
                                + " tools, cwd " + o.path("cwd").asText("?"));
                        steps.add(s);
                    } else if (o.path("subtype").asText().equals("api_retry")) {
                        StepDraft s = new StepDraft("system", null);
                        s.addText("API retry " + o.path("attempt").asText("?") + "/" + o.path("max_retries").asText("?")
                                + ": " + o.path("error_status").asText("?") + " " + o.path("error").asText(""));
                        steps.add(s);
                    }
                }
                case "assistant" -> {
                    JsonNode msg = o.path("message");
                    if (ClaudeCodeAdapter.synthetic(o)) {
                        StepDraft s = new StepDraft("system", null);
                        for (JsonNode b : msg.path("content")) {
                            s.addText(b.path("text").asText());
                        }
                        steps.add(s);
                        continue;
                    }
                    String id = msg.path("id").asText("");
                    StepDraft s = id.isEmpty() ? null : byMessage.get(id);
                    if (s == null) {
                        s = new StepDraft("agent", id);
                        steps.add(s);
                        if (!id.isEmpty()) {
                            byMessage.put(id, s);
                        }
                    }
                    for (JsonNode b : msg.path("content")) {
                        switch (b.path("type").asText()) {
                            case "text" -> s.addText(b.path("text").asText());
                            case "tool_use" -> {
                                String[] call = {b.path("id").asText(), b.path("name").asText(),
                                        b.path("input").toString(), null};
                                s.calls.add(call);
                                callsById.put(call[0], call);
                            }
                            default -> { }
                        }
                    }
                    JsonNode u = msg.path("usage");
                    if (u.isObject()) {
                        long in = ClaudeCodeAdapter.inputTokens(u);
                        long out = u.path("output_tokens").asLong(0);
                        boolean first = s.tokensIn == null;
                        long dIn = first ? in : Math.max(0, in - s.tokensIn);
                        long dOut = first ? out : Math.max(0, out - s.outSeen);
                        s.tokensIn = first ? in : Math.max(s.tokensIn, in);
                        s.outSeen = first ? out : Math.max(s.outSeen, out);
                        if (!msg.path("stop_reason").isNull() && !msg.path("stop_reason").isMissingNode()) {
                            s.tokensOut = s.outSeen;
                        }
                        streamed = ClaudeCodeAdapter.add(streamed, first ? 1 : 0, dIn, dOut);
                    }
                }
                case "user" -> {
                    JsonNode content = o.path("message").path("content");
                    if (content.isTextual()) {
                        StepDraft s = new StepDraft("user", null);
                        s.addText(content.asText());
                        steps.add(s);
                        continue;
                    }
                    StepDraft text = null;
                    for (JsonNode b : content) {
                        String type = b.path("type").asText();
                        if (type.equals("tool_result")) {
                            String[] call = callsById.get(b.path("tool_use_id").asText());
                            if (call != null) {
                                String r = resultText(b.path("content"));
                                call[3] = b.path("is_error").asBoolean(false) ? "error: " + r : r;
                            }
                        } else if (type.equals("text")) {
                            if (text == null) {
                                text = new StepDraft("user", null);
                                steps.add(text);
                            }
                            text.addText(b.path("text").asText());
                        }
                    }
                }
                case "result" -> result = o;
                default -> { }
            }
        }
        List<Trajectory.Step> out = new ArrayList<>();
        for (StepDraft s : steps) {
            out.add(s.build());
        }
        return new ClaudeTranscript(new Trajectory(out), streamed, result);
    }

    /** A tool_result's content: a string, or the text of its blocks (other blocks named by type). */
    private static String resultText(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode b : content) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append(b.path("type").asText().equals("text") ? b.path("text").asText()
                    : "[" + b.path("type").asText() + "]");
        }
        return sb.toString();
    }
}
