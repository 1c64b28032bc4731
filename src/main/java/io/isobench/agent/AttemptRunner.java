package io.isobench.agent;

import io.isobench.guard.Secrets;
import io.isobench.proc.ProcessGroup;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Runs one attempt of one agent on one sealed repository (docs/agents.md): writes the prompt and the adapter's config
 * files into the agent's home, records the CLI's version, starts the agent in the sandbox, reads its stdout line by
 * line (kept whole on disk, within {@link AttemptLimits}) and kills it when its usage passes the budget, the wall
 * time runs out or its output passes the limit, then collects the patch as bytes. Where the sandbox meters the model
 * traffic ({@link AgentSandbox#meter}: the docker sandbox's egress proxy), usage is the proxy's count — the budget is
 * enforced on it and it is what the attempt records — and what the CLI printed is only cross-checked: a mismatch is
 * flagged in the attempt's detail. Secret values are replaced by {@value Secrets#MASK} in every output it returns;
 * the patch is never rewritten: one that holds a secret value is flagged ({@link AttemptStatus#PATCH_HAS_SECRET}) and
 * only its stored copy masked.
 */
public final class AttemptRunner {

    /** Seconds the CLI's {@code --version} may take. */
    static final long VERSION_TIMEOUT_S = 60;

    private final AgentAdapter adapter;
    private final AgentConfig config;
    private final AgentSandbox sandbox;
    private final Map<String, String> secrets;
    private final AttemptLimits limits;

    /**
     * @param secrets secret name → value (given to the agent, redacted from every output)
     */
    public AttemptRunner(AgentAdapter adapter, AgentConfig config, AgentSandbox sandbox, Map<String, String> secrets) {
        this(adapter, config, sandbox, secrets, AttemptLimits.DEFAULT);
    }

    /** An attempt runner with the size limits {@code limits}. */
    public AttemptRunner(AgentAdapter adapter, AgentConfig config, AgentSandbox sandbox, Map<String, String> secrets,
                         AttemptLimits limits) {
        this.adapter = adapter;
        this.config = config;
        this.sandbox = sandbox;
        this.secrets = Map.copyOf(secrets);
        this.limits = limits;
    }

    /** The secrets of {@code config} (or the adapter's default names) read from {@code env}; missing ones skipped. */
    public static Map<String, String> secretsFrom(AgentAdapter adapter, AgentConfig config, Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : config.secrets().isEmpty() ? adapter.defaultSecretEnv() : config.secrets()) {
            String v = env.get(name);
            if (v != null) {
                out.put(name, v);
            }
        }
        return out;
    }

    /** The launch as the agent sees it. */
    public AgentLaunch launch(AttemptDirs dirs, String prompt) {
        SandboxView v = sandbox.view(dirs);
        return new AgentLaunch(v.cli(), v.repoDir(), v.homeDir(), v.promptFile(), prompt, config.model(), v.baseUrl(),
                config.budget(), new ArrayList<>(secrets.keySet()), config.argv());
    }

    /** The sandbox's name ({@code local}, {@code docker}). */
    public String sandboxName() {
        return sandbox.name();
    }

    /** The budget attempts run under. */
    public Budget budget() {
        return config.budget();
    }

    /** The adapter's invocation for {@code dirs} and {@code prompt} (as recorded: no secrets in it). */
    public Invocation invocation(AttemptDirs dirs, String prompt) {
        return adapter.invocation(launch(dirs, prompt));
    }

    /** Ends the attempt in {@code dirs} in its sandbox; the model-endpoint requests it made (one line each). */
    public List<String> finish(AttemptDirs dirs) {
        return sandbox.finish(dirs);
    }

    /** Gives the attempt in {@code dirs} the leased GPUs {@code ids} in its sandbox ({@link AgentSandbox#lendGpus}). */
    public String lendGpus(AttemptDirs dirs, List<Integer> ids) {
        return sandbox.lendGpus(dirs, ids);
    }

    /** Kills what an interrupted attempt in {@code dirs} left running (a resumed session calls it). */
    public void reap(AttemptDirs dirs) {
        sandbox.reap(dirs);
    }

    /** {@code u} priced with the suite's {@code pricing} (USD per million tokens), or null without prices. */
    public Double price(Usage u) {
        Double in = config.pricing().get("input_usd_per_mtok");
        Double out = config.pricing().get("output_usd_per_mtok");
        if (in == null && out == null) {
            return null;
        }
        return (in == null ? 0 : in * u.tokensIn() / 1e6) + (out == null ? 0 : out * u.tokensOut() / 1e6);
    }

    /** The CLI's version line, or a text saying why it is unknown. */
    public String version(AttemptDirs dirs) {
        Invocation inv = new Invocation(adapter.versionArgv(launch(dirs, "")), config.env(), Map.of());
        try {
            Process p = sandbox.start(dirs, inv, Map.of());
            p.getOutputStream().close();
            var out = new CompletableFuture<String>();
            Thread.ofVirtual().start(() -> out.complete(readQuietly(p.getInputStream())));
            Thread.ofVirtual().start(() -> readQuietly(p.getErrorStream()));
            if (!p.waitFor(VERSION_TIMEOUT_S, TimeUnit.SECONDS)) {
                sandbox.kill(p);
                return "unknown (--version did not answer in " + VERSION_TIMEOUT_S + " s)";
            }
            String text = out.get(5, TimeUnit.SECONDS).strip();
            String first = text.isEmpty() ? "" : text.lines().findFirst().orElse("");
            return p.exitValue() == 0 && !first.isEmpty() ? first
                    : "unknown (--version exited " + p.exitValue() + ")";
        } catch (Exception e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** Runs the attempt on {@code sealed} with {@code prompt}; never throws for what the agent does. */
    public AttemptResult run(AttemptDirs dirs, SealedRepo sealed, String prompt) throws IOException {
        Files.writeString(dirs.promptFile(), prompt);
        String version = version(dirs);
        AgentLaunch launch = launch(dirs, prompt);
        Invocation inv = adapter.invocation(launch);
        Map<String, String> env = new LinkedHashMap<>(config.env());
        env.putAll(inv.env());
        inv = new Invocation(inv.argv(), env, inv.homeFiles());
        for (Map.Entry<String, String> f : inv.homeFiles().entrySet()) {
            writeInHome(dirs.home(), f.getKey(), f.getValue());
        }
        long t0 = System.nanoTime();
        EgressMeter meter = sandbox.meter(dirs);
        AtomicReference<Usage> usage = new AtomicReference<>(Usage.NONE);
        AtomicReference<String> overrun = new AtomicReference<>();
        AtomicReference<Process> started = new AtomicReference<>();
        if (meter != null) {
            // on the proxy's thread: the kill runs beside it, so the refused request is answered and logged first
            meter.listen(m -> overBudget(started.get(), meter, usage.get(), overrun, false, true));
        }
        Process p = sandbox.start(dirs, inv, secrets);
        started.set(p);
        Files.writeString(dirs.root().resolve("agent.pid"), Long.toString(p.pid()));
        p.getOutputStream().close();
        overBudget(p, meter, usage.get(), overrun, false, false); // what the proxy counted before the start returned
        AtomicReference<String> tooLarge = new AtomicReference<>();
        Thread out = Thread.ofPlatform().daemon().start(() -> pump(p, tooLarge, "stdout", line -> observed(p, meter,
                usage, overrun, u -> adapter.observe(line, u), adapter.isFinal(line))).copy(p.getInputStream(),
                dirs.stdoutFile()));
        Thread err = Thread.ofPlatform().daemon().start(() -> pump(p, tooLarge, "stderr", line -> { })
                .copy(p.getErrorStream(), dirs.stderrFile()));
        UsageLogTail tail = adapter.usageLogDir() == null ? null
                : UsageLogTail.start(dirs.home().resolve(adapter.usageLogDir()), line -> observed(p, meter, usage,
                        overrun, u -> adapter.observeLog(line, u), false));
        boolean timedOut = false;
        try {
            Double wall = config.budget().wallS();
            if (wall == null) {
                p.waitFor();
            } else if (!p.waitFor(Math.max(1, Math.round(wall * 1000)), TimeUnit.MILLISECONDS)) {
                timedOut = overrun.get() == null && tooLarge.get() == null;
                sandbox.kill(p);
                p.waitFor(30, TimeUnit.SECONDS);
            }
            out.join(30_000);
            err.join(30_000);
            if (tail != null) {
                tail.stop();
            }
        } catch (InterruptedException e) {
            sandbox.kill(p);
            if (tail != null) {
                tail.stop();
            }
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        double wallS = (System.nanoTime() - t0) / 1e9;
        int exit = p.isAlive() ? -1 : p.exitValue();
        // written redacted, kept whole on disk; read bounded: head and tail, the cut said (docs/agents.md, "Limits")
        String stdout = redact(ProcessGroup.readLog(dirs.stdoutFile()));
        String stderr = redact(ProcessGroup.readLog(dirs.stderrFile()));
        AgentReport report;
        try {
            report = adapter.parse(new AgentOutput(stdout, stderr, exit));
        } catch (RuntimeException e) {
            report = new AgentReport(AttemptStatus.AGENT_CRASH, usage.get(), Trajectory.EMPTY,
                    "unreadable agent output: " + e.getMessage());
        }
        Usage reported = report.usage().tokens() == 0 && report.usage().turns() == 0 ? usage.get() : report.usage();
        // a usage log may have seen more than a killed agent's stdout
        Usage cli = tail == null ? reported : atLeast(reported, usage.get());
        Usage used = meter == null ? cli : metered(meter, cli);
        String mismatch = meter == null ? null : mismatch(meter, cli);
        PatchOutcome patch = patch(dirs, sealed);
        AttemptStatus status;
        String detail;
        Optional<String> over = Optional.ofNullable(overrun.get()).or(() -> config.budget().exceeded(used));
        if (sandbox.unstoppable(p)) {
            status = AttemptStatus.SANDBOX_UNSTOPPABLE;
            detail = (timedOut ? "wall time ran out" : over.orElse("killed")) + "; the sandbox could not be proven"
                    + " stopped (docker inspect showed it running after every kill); it is removed when isobench ends"
                    + " or at the next sandbox's start";
        } else if (tooLarge.get() != null) {
            status = AttemptStatus.OUTPUT_TOO_LARGE;
            detail = tooLarge.get();
        } else if (timedOut) {
            status = AttemptStatus.AGENT_TIMEOUT;
            detail = String.format(Locale.ROOT, "wall time %.0f s > budget %.0f s; killed", wallS,
                    config.budget().wallS());
        } else if (over.isPresent()) {
            status = AttemptStatus.BUDGET_EXCEEDED;
            detail = over.get();
        } else if (report.status() != AttemptStatus.OK) {
            status = report.status();
            detail = report.detail();
        } else if (patch.status() != null) {
            status = patch.status();
            detail = patch.detail();
        } else if (patch.bytes().length == 0) {
            status = AttemptStatus.EMPTY_PATCH;
            detail = "the agent finished without changing the repository";
        } else {
            status = AttemptStatus.OK;
            detail = report.detail();
        }
        if (patch.status() != null && status != patch.status()) {
            detail = detail + "; " + patch.detail();
        }
        detail = mismatch == null ? detail : detail + " [" + mismatch + "]";
        return new AttemptResult(status, redact(detail), used, wallS, patch.bytes(), version,
                report.trajectory().limitedTo(limits.trajectorySteps()), stdout, stderr, exit);
    }

    /**
     * The attempt's patch as bytes, what went wrong with it (status and detail), or neither.
     *
     * @param bytes  the patch as git wrote it, or with the attempt's secret values masked when it held one
     * @param status {@link AttemptStatus#PATCH_TOO_LARGE}, {@link AttemptStatus#PATCH_HAS_SECRET},
     *               {@link AttemptStatus#ATTEMPT_CRASHED} (collecting failed), or null
     */
    record PatchOutcome(byte[] bytes, AttemptStatus status, String detail) {
    }

    /** Collects the patch into {@code patch.diff} beside the attempt's folders, within the limit. */
    PatchOutcome patch(AttemptDirs dirs, SealedRepo sealed) {
        PatchCollector.Collected c;
        try {
            c = PatchCollector.collect(sealed, dirs.root().resolve("patch.diff"), limits.patchBytes());
        } catch (IOException | RuntimeException e) {
            return new PatchOutcome(new byte[0], AttemptStatus.ATTEMPT_CRASHED, "collecting the patch failed: "
                    + e.getMessage());
        }
        if (c.tooLarge() != null) {
            return new PatchOutcome(new byte[0], AttemptStatus.PATCH_TOO_LARGE, c.tooLarge());
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(c.file()); // at most the patch limit
        } catch (IOException e) {
            return new PatchOutcome(new byte[0], AttemptStatus.ATTEMPT_CRASHED, "reading the patch failed: "
                    + e.getMessage());
        }
        List<String> found = new ArrayList<>();
        byte[] masked = bytes;
        for (Map.Entry<String, String> s : secrets.entrySet()) {
            byte[] next = maskValue(masked, s.getValue());
            if (next != masked) {
                found.add(s.getKey());
                masked = next;
            }
        }
        if (found.isEmpty()) {
            return new PatchOutcome(bytes, null, null);
        }
        try {
            Files.write(c.file(), masked); // the secret is not kept beside the attempt either
        } catch (IOException e) {
            // the worktree holds it anyway; the stored copy is masked
        }
        return new PatchOutcome(masked, AttemptStatus.PATCH_HAS_SECRET, "the patch holds the value of " + found
                + " (the attempt's own secret): stored with it masked, not written beside the suite nor measured"
                + " (fix: an agent must not write its API key into the code)");
    }

    /**
     * {@code bytes} with each occurrence of {@code value}'s UTF-8 bytes replaced by {@value Secrets#MASK}; the same
     * array when there is none (values under 4 characters are not masked: too short to be a key).
     */
    static byte[] maskValue(byte[] bytes, String value) {
        if (value == null || value.length() < 4) {
            return bytes;
        }
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        byte[] mask = Secrets.MASK.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = null;
        int from = 0;
        for (int i = 0; i + v.length <= bytes.length; ) {
            if (Arrays.equals(bytes, i, i + v.length, v, 0, v.length)) {
                if (out == null) {
                    out = new ByteArrayOutputStream(bytes.length);
                }
                out.write(bytes, from, i - from);
                out.writeBytes(mask);
                i += v.length;
                from = i;
            } else {
                i++;
            }
        }
        if (out == null) {
            return bytes;
        }
        out.write(bytes, from, bytes.length - from);
        return out.toByteArray();
    }

    /**
     * Writes {@code text} to {@code rel} under {@code home} without following links: the agent has run in that home
     * (the {@code --version} call) and may have planted symlinks pointing at host files. A symlink at the file is
     * replaced; a parent that resolves outside the home is refused.
     */
    static void writeInHome(Path home, String rel, String text) throws IOException {
        Path p = home.resolve(rel).normalize();
        if (!p.startsWith(home) || p.equals(home)) {
            throw new IllegalArgumentException("adapter file outside the agent's home: " + rel);
        }
        Files.createDirectories(p.getParent());
        if (!p.getParent().toRealPath().startsWith(home.toRealPath())) {
            throw new IllegalArgumentException("adapter file " + rel + ": its folder leads outside the agent's home");
        }
        if (Files.isSymbolicLink(p)) {
            Files.delete(p);
        }
        Files.write(p, text.getBytes(StandardCharsets.UTF_8), LinkOption.NOFOLLOW_LINKS,
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
    }

    /** A pump for one of {@code p}'s streams: past the output limit it records why and kills the attempt. */
    private OutputPump pump(Process p, AtomicReference<String> tooLarge, String stream,
                            Consumer<String> onLine) {
        return new OutputPump(this::redact, onLine, () -> {
            if (tooLarge.compareAndSet(null, "the agent's " + stream + " passed " + limits.outputBytes()
                    + " bytes (limit output_mb); killed by isobench (fix: a quieter agent, or raise"
                    + " runner.limits.output_mb)")) {
                sandbox.kill(p);
            }
        }, limits.outputBytes());
    }

    /** Applies one observation to {@code usage} (atomically: stdout and a usage log may both report) and kills the
     * attempt when the budget is passed. */
    private void observed(Process p, EgressMeter meter, AtomicReference<Usage> usage, AtomicReference<String> overrun,
                          UnaryOperator<Usage> step, boolean finalLine) {
        Usage u = usage.updateAndGet(x -> {
            try {
                return step.apply(x);
            } catch (RuntimeException e) {
                return x;
            }
        });
        overBudget(p, meter, u, overrun, finalLine, false);
    }

    /**
     * Kills the attempt when its usage passes the budget: the proxy's count where there is a meter (then the proxy
     * also refuses every further model request), else {@code cli}, what the CLI reported.
     */
    private void overBudget(Process p, EgressMeter meter, Usage cli, AtomicReference<String> overrun,
                            boolean finalLine, boolean killBeside) {
        Optional<String> over = config.budget().exceeded(meter == null ? cli : metered(meter, cli));
        if (over.isPresent() && p == null) {
            meter.refuseFurther(over.get()); // not started yet as far as this thread knows: killed right after
            return;
        }
        if (over.isPresent() && overrun.compareAndSet(null, over.get())) {
            if (meter != null) {
                meter.refuseFurther(over.get());
            }
            if ((!finalLine || meter != null) && p != null) { // a "final" line is only the CLI's claim there
                overrun.updateAndGet(m -> m + "; killed by isobench");
                if (killBeside) {
                    Thread.ofPlatform().daemon().name("isobench-budget-kill").start(() -> sandbox.kill(p));
                } else {
                    sandbox.kill(p);
                }
            } // the agent's own final line (a CLI stopped at its own limit): it is exiting, not killed
        }
    }

    /** Most bytes of a {@code --version} answer kept (the rest is read and dropped). */
    static final int VERSION_BYTES = 64 * 1024;

    /** The proxy's count priced with the suite's pricing (without pricing: the CLI's reported cost). */
    private Usage metered(EgressMeter meter, Usage cli) {
        Usage m = meter.usage();
        Double usd = price(m);
        return m.withCostUsd(usd != null ? usd : cli.costUsd());
    }

    /**
     * Where the CLI's report disagrees with the proxy's count, a note saying so (null when they agree): more turns
     * than model requests, or tokens off by more than 2% (16 tokens at least), or responses the proxy could not read.
     */
    String mismatch(EgressMeter meter, Usage cli) {
        Usage m = meter.usage();
        Double usd = price(m);
        boolean off = cli.turns() > m.turns() || Math.abs(cli.tokensIn() - m.tokensIn()) > slack(m.tokensIn())
                || Math.abs(cli.tokensOut() - m.tokensOut()) > slack(m.tokensOut())
                || usd != null && cli.costUsd() != null && Math.abs(cli.costUsd() - usd) > Math.max(1e-4, usd / 50);
        String unread = meter.unreadResponses() == 0 ? "" : "; " + meter.unreadResponses()
                + " model responses the proxy could not read";
        if (!off && unread.isEmpty()) {
            return null;
        }
        return "usage mismatch: the CLI reported " + cli.turns() + " turns, " + cli.tokensIn() + "+" + cli.tokensOut()
                + " tokens" + usd(cli.costUsd()) + "; the egress proxy counted " + m.turns() + " requests, "
                + m.tokensIn() + "+" + m.tokensOut() + " tokens" + usd(usd) + " (recorded)" + unread;
    }

    private static String usd(Double usd) {
        return usd == null ? "" : String.format(Locale.ROOT, ", $%.4f", usd);
    }

    private static long slack(long counted) {
        return Math.max(16, counted / 50);
    }

    private static String readQuietly(InputStream in) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (in) {
            byte[] buf = new byte[8192];
            int r;
            while ((r = in.read(buf)) >= 0) {
                b.write(buf, 0, Math.min(r, Math.max(0, VERSION_BYTES - b.size())));
            }
        } catch (IOException e) {
            // what came is kept
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** {@code text} with every secret value masked, then the generic secret patterns ({@link Secrets#redact}). */
    String redact(String text) {
        return Secrets.redact(maskSecretValues(text));
    }

    /**
     * {@code text} with this attempt's secret values masked, nothing else: a patch stays byte for byte what the agent
     * wrote unless it wrote its own API key into the code.
     */
    String maskSecretValues(String text) {
        String out = text;
        for (String v : secrets.values()) {
            if (v.length() >= 4) {
                out = out.replace(v, Secrets.MASK);
            }
        }
        return out;
    }

    /** {@code a} with each count raised to {@code b}'s where {@code b}'s is larger. */
    static Usage atLeast(Usage a, Usage b) {
        return new Usage(Math.max(a.turns(), b.turns()), Math.max(a.tokensIn(), b.tokensIn()),
                Math.max(a.tokensOut(), b.tokensOut()), a.costUsd() != null ? a.costUsd() : b.costUsd());
    }

    /** The budget as recorded. */
    static Map<String, Object> budgetMap(Budget b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("wall_s", b.wallS());
        m.put("turns", b.turns());
        m.put("tokens", b.tokens());
        m.put("usd", b.usd());
        return m;
    }
}
