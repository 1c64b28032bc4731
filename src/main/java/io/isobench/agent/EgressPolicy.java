package io.isobench.agent;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * What the {@link EgressProxy} lets through to its one upstream (docs/agents.md, "Sandbox"): only {@code GET} and
 * {@code POST}, no {@code CONNECT}, no protocol upgrade, request targets that are paths under the upstream's path
 * prefix with no {@code .}/{@code ..} segment, {@code ;} parameter, backslash or control character at any depth of
 * percent-decoding; and which headers are forwarded (never hop-by-hop ones, those the request's {@code Connection}
 * names, forwarding or method-override headers, or {@code Accept-Encoding}). The proxy does the HTTP; this class only
 * decides.
 */
final class EgressPolicy {

    /**
     * A request the proxy refuses: what its log line shows ({@code method}, {@code path}), the status and the one-line
     * reason sent to the agent.
     */
    record Refusal(String method, String path, int status, String why) {
    }

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection",
            "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade", "host",
            "content-length", "expect");
    /** Request headers never forwarded: who the client claims to be or forward for, and compression. */
    private static final Set<String> DROPPED = Set.of("forwarded", "via", "x-real-ip", "x-client-ip",
            "true-client-ip", "x-original-url", "x-rewrite-url", "x-http-method-override", "x-http-method",
            "x-method-override", "accept-encoding");
    private static final Set<String> METHODS = Set.of("GET", "POST");

    private final URI upstream;
    private final String prefix;

    EgressPolicy(URI upstream) {
        this.upstream = upstream;
        String p = upstream.getRawPath() == null ? "" : upstream.getRawPath();
        this.prefix = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /**
     * Why the request ({@code target} as written, {@code path} without its query) is refused before anything is
     * forwarded, or null when it may go on.
     */
    Refusal refusal(String method, String target, String path, List<String[]> headers) {
        if ("CONNECT".equalsIgnoreCase(method)) {
            return new Refusal(method, target, 405, "CONNECT is refused: this proxy reaches only " + upstream);
        }
        if (!METHODS.contains(method)) {
            return new Refusal(method.length() > 16 ? "(method)" : method, path, 405, "only GET and POST are"
                    + " forwarded (the model API needs no other method)");
        }
        if (HttpHead.header(headers, "upgrade") != null
                || HttpHead.tokens(HttpHead.header(headers, "connection")).contains("upgrade")) {
            return new Refusal(method, path, 403, "protocol upgrades are refused");
        }
        if (!target.startsWith("/")) {
            return new Refusal(method, "(not a path)", 403, "request targets must be a path on " + upstream
                    + " (absolute-form, authority-form and * are refused)");
        }
        String why = pathProblem(path);
        return why == null ? null : new Refusal(method, path, 403, why);
    }

    /** Whether a request header ({@code name} lower-case) is forwarded; {@code named}: what its Connection names. */
    static boolean forwards(String name, List<String> named) {
        return !HOP_BY_HOP.contains(name) && !DROPPED.contains(name) && !name.startsWith("x-forwarded-")
                && !named.contains(name);
    }

    /** Whether {@code name} (lower case) is a hop-by-hop header, never passed on in either direction. */
    static boolean hopByHop(String name) {
        return HOP_BY_HOP.contains(name);
    }

    /**
     * Why {@code path} may not be forwarded, or null: it is percent-decoded until it no longer changes (at most 3
     * times over), and no form of it may hold a {@code .}/{@code ..} segment, a {@code ;} path parameter, a
     * backslash or a control character, or leave the upstream's path prefix.
     */
    private String pathProblem(String path) {
        String cur = path;
        for (int depth = 0; ; depth++) {
            String why = formProblem(cur);
            if (why != null) {
                return why;
            }
            String next;
            try {
                next = URLDecoder.decode(cur.replace("+", "%2B"), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return "the path is not valid percent-encoding";
            }
            if (next.equals(cur)) {
                return null;
            }
            if (depth == 3) {
                return "the path is percent-encoded more than 3 times over";
            }
            cur = next;
        }
    }

    /** Why one decoding of the path may not be forwarded, or null. */
    private String formProblem(String p) {
        for (String seg : p.split("/", -1)) {
            if (seg.equals(".") || seg.equals("..")) {
                return "paths with . or .. segments are refused";
            }
        }
        if (p.indexOf(';') >= 0) {
            return "path parameters (;) are refused";
        }
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '\\' || c < 0x20 || c == 0x7f) {
                return "the path holds a backslash or a control character";
            }
        }
        if (!prefix.isEmpty() && !p.equals(prefix) && !p.startsWith(prefix + "/")) {
            return "the path is outside " + upstream + " (only " + prefix + "/… is forwarded)";
        }
        return null;
    }
}
