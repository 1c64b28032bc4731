package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Any agent CLI (OpenHands, mini-swe-agent, an in-house agent): the suite gives an argv template whose elements may
 * hold {@code {cli}} (the runner's {@code cli} as the sandbox sees it: baked into a docker sandbox's image), {@code {repo}}, {@code {prompt_file}}, {@code {model}}, {@code {base_url}} and {@code {home}}; each element is
 * substituted on its own and passed as one argument (no shell, so a path or model name cannot inject anything).
 * The agent reports usage, if it can, by printing lines {@code isobench-usage: {"turns":1,"tokens_in":N,
 * "tokens_out":M,"cost_usd":X}} (each line adds to the total; a line with a negative, fractional, non-numeric or
 * impossibly large value — over {@value #MAX_TURNS_PER_LINE} turns, {@value #MAX_TOKENS_PER_LINE} tokens or
 * ${@value #MAX_USD_PER_LINE} — is refused: not counted, and the report says how many were); under the docker
 * sandbox these lines are only cross-checked against the egress proxy's count (docs/agents.md, "Usage"), which is
 * what the budget and the record use. Exit status 0 is a finished attempt, anything else
 * {@link AttemptStatus#AGENT_CRASH}. Its stdout is its trajectory: one step per non-usage line.
 */
public final class CommandAdapter implements AgentAdapter {

    /** Prefix of a usage line on the agent's stdout. */
    public static final String USAGE_PREFIX = "isobench-usage:";

    /** The most turns one usage line may add. */
    static final int MAX_TURNS_PER_LINE = 10_000;
    /** The most tokens (in or out) one usage line may add. */
    static final long MAX_TOKENS_PER_LINE = 1_000_000_000L;
    /** The most USD one usage line may add. */
    static final double MAX_USD_PER_LINE = 100_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String id() {
        return "command";
    }

    @Override
    public List<String> defaultSecretEnv() {
        return List.of();
    }

    @Override
    public List<String> versionArgv(AgentLaunch launch) {
        return List.of(launch.argvTemplate().isEmpty() ? launch.cli() : substitute(launch.argvTemplate().get(0),
                launch), "--version");
    }

    @Override
    public Invocation invocation(AgentLaunch launch) {
        if (launch.argvTemplate().isEmpty()) {
            throw new IllegalArgumentException("the command adapter needs an argv template (fix: agents[].runner.argv:"
                    + " [my-agent, --repo, '{repo}', --task, '{prompt_file}'])");
        }
        List<String> argv = new ArrayList<>();
        for (String a : launch.argvTemplate()) {
            argv.add(substitute(a, launch));
        }
        return new Invocation(argv, Map.of(), Map.of());
    }

    static String substitute(String element, AgentLaunch l) {
        return element.replace("{cli}", l.cli())
                .replace("{repo}", l.repoDir())
                .replace("{prompt_file}", l.promptFile())
                .replace("{home}", l.homeDir())
                .replace("{model}", l.model() == null ? "" : l.model())
                .replace("{base_url}", l.baseUrl() == null ? "" : l.baseUrl());
    }

    @Override
    public Usage observe(String line, Usage soFar) {
        JsonNode u = usageLine(line);
        if (u == null || refusal(u) != null) {
            return soFar;
        }
        return soFar.plus(u.path("turns").asInt(0), u.path("tokens_in").asLong(0), u.path("tokens_out").asLong(0),
                u.has("cost_usd") ? u.get("cost_usd").asDouble() : null);
    }

    /** Why a usage line's values cannot be counted, or null. */
    static String refusal(JsonNode u) {
        for (String f : List.of("turns", "tokens_in", "tokens_out")) {
            JsonNode v = u.get(f);
            long max = f.equals("turns") ? MAX_TURNS_PER_LINE : MAX_TOKENS_PER_LINE;
            if (v != null && !(v.isIntegralNumber() && v.canConvertToLong() && v.asLong() >= 0 && v.asLong() <= max)) {
                return f + " " + v + " is not a whole number from 0 to " + max;
            }
        }
        JsonNode c = u.get("cost_usd");
        if (c != null && !(c.isNumber() && Double.isFinite(c.asDouble()) && c.asDouble() >= 0
                && c.asDouble() <= MAX_USD_PER_LINE)) {
            return "cost_usd " + c + " is not a number from 0 to " + MAX_USD_PER_LINE;
        }
        return null;
    }

    private static JsonNode usageLine(String line) {
        String t = line.strip();
        if (!t.startsWith(USAGE_PREFIX)) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(t.substring(USAGE_PREFIX.length()));
            return n != null && n.isObject() ? n : null;
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public AgentReport parse(AgentOutput out) {
        Usage u = Usage.NONE;
        List<Trajectory.Step> steps = new ArrayList<>();
        String refused = null;
        int refusedLines = 0;
        for (String line : out.stdout().split("\n", -1)) {
            JsonNode ul = usageLine(line);
            String why = ul == null ? null : refusal(ul);
            if (why != null) {
                refusedLines++;
                refused = refused == null ? why : refused;
                continue;
            }
            Usage next = observe(line, u);
            if (next != u) {
                u = next;
            } else if (!line.isBlank()) {
                steps.add(new Trajectory.Step("agent", line, List.of(), null, null));
            }
        }
        String note = refused == null ? "" : " [refused " + refusedLines + " usage line(s): " + refused + "]";
        if (out.exitCode() != 0) {
            String last = lastLine(out.stderr().isBlank() ? out.stdout() : out.stderr());
            return new AgentReport(AttemptStatus.AGENT_CRASH, u, new Trajectory(steps),
                    "exit status " + out.exitCode() + (last.isEmpty() ? "" : ": " + last) + note);
        }
        return new AgentReport(AttemptStatus.OK, u, new Trajectory(steps), lastLine(out.stdout()) + note);
    }

    static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1].strip();
    }
}
