package io.isobench.env;

import io.isobench.guard.InsideTree;
import io.isobench.parse.Failure;
import io.isobench.proc.ProcessGroup;
import io.isobench.parse.FailureCategory;
import io.isobench.task.Recipe;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

/** Applies fix recipes to a worktree and runs commands (build, pip) without a shell, with a time limit. */
final class Recipes {

    private static final Pattern PIP_CONFLICT = Pattern.compile(
            "(?i)ResolutionImpossible|conflicting dependencies|dependency conflict|is incompatible");

    private Recipes() {
    }

    /**
     * Applies {@code r} to the worktree {@code dest}; variables it sets go into {@code env}. Appends the application
     * to {@code applied}. Returns null on success, else the classified failure.
     */
    static Failure apply(Recipe r, Path dest, Map<String, String> env, ArmSetup setup, List<RecipeApplication> applied,
                         StringBuilder log) {
        int timeoutS = setup.buildTimeoutS();
        String kind = r.kind().key();
        log.append("# recipe ").append(r.name()).append(" (").append(kind).append(") ").append(r.params()).append('\n');
        String detail;
        Failure failure = null;
        switch (r.kind()) {
            case ENV -> {
                env.putAll(r.params());
                detail = "set " + String.join(", ", r.params().keySet());
            }
            case PIP_PIN -> {
                String spec = r.params().get("spec");
                Path site = Worktrees.siteDir(dest);
                try {
                    Files.createDirectories(site);
                } catch (IOException e) {
                    detail = "cannot create " + site + ": " + e.getMessage();
                    failure = fail(FailureCategory.ENV_MISSING, r, detail, List.of(detail));
                    break;
                }
                List<String> argv = List.of(python(), "-m", "pip", "install", "--disable-pip-version-check",
                        "--no-input", "--no-warn-script-location", "--upgrade", "--target", site.toString(), spec);
                log.append("$ (").append(dest).append(") ").append(String.join(" ", argv)).append('\n');
                BuildStep run = run(argv, dest, env, timeoutS, setup.groupStarted());
                log.append(run.log());
                if (run.ok()) {
                    String prev = env.getOrDefault("PYTHONPATH", System.getenv("PYTHONPATH"));
                    env.put("PYTHONPATH", site + (prev == null || prev.isEmpty() ? "" : File.pathSeparator + prev));
                    detail = "installed " + spec + " into " + site.getFileName() + " (first on PYTHONPATH)";
                } else {
                    detail = run.timedOut() ? "pip timed out after " + timeoutS + " s"
                            : run.exitCode() == null ? lastLines(run.log(), 1).stream().findFirst().orElse("pip did not start")
                            : "pip install " + spec + " exited with " + run.exitCode() + ": "
                            + lastLines(run.log(), 1).stream().findFirst().orElse("");
                    FailureCategory c = PIP_CONFLICT.matcher(run.log()).find() ? FailureCategory.DEPENDENCY_CONFLICT
                            : FailureCategory.ENV_MISSING;
                    failure = fail(c, r, detail, lastLines(run.log(), 5));
                }
            }
            case APPLY_PATCH -> {
                String p = r.params().get("path");
                String outside = Worktrees.leavesTree(dest, Path.of(p));
                if (outside != null) {
                    detail = Path.of(p).getFileName() + " writes outside the worktree: " + outside;
                    failure = fail(FailureCategory.BUILD_FAILED, r, detail, List.of(detail));
                    break;
                }
                Worktrees.Git check = Worktrees.git(log, dest, "apply", "--check", p);
                if (check.code() != 0) {
                    detail = "git apply --check " + Path.of(p).getFileName() + ": " + Worktrees.firstLine(check.out());
                    failure = fail(FailureCategory.BUILD_FAILED, r, detail, List.of(Worktrees.firstLine(check.out())));
                    break;
                }
                Worktrees.Git apply = Worktrees.git(log, dest, "apply", p);
                if (apply.code() != 0) {
                    detail = "git apply " + Path.of(p).getFileName() + ": " + Worktrees.firstLine(apply.out());
                    failure = fail(FailureCategory.BUILD_FAILED, r, detail, List.of(Worktrees.firstLine(apply.out())));
                    break;
                }
                detail = "applied " + Path.of(p).getFileName();
            }
            case REPLACE_IN_FILE -> {
                String rel = r.params().get("path");
                String from = r.params().get("from");
                String to = r.params().get("to");
                Path file;
                try {
                    // the real path: a link a patch planted (to a file outside the repository) is refused
                    file = InsideTree.resolve(dest, rel);
                } catch (IOException e) {
                    detail = "cannot edit " + e.getMessage();
                    failure = fail(FailureCategory.BUILD_FAILED, r, detail, List.of(detail));
                    break;
                }
                if (!Files.isRegularFile(file)) {
                    detail = "no file " + rel + " in the worktree";
                    failure = fail(FailureCategory.BUILD_FAILED, r, detail, List.of(detail));
                    break;
                }
                try {
                    String text = Files.readString(file, StandardCharsets.UTF_8);
                    int count = 0;
                    for (int i = text.indexOf(from); i >= 0; i = text.indexOf(from, i + from.length())) {
                        count++;
                    }
                    if (count == 0) {
                        detail = "text not found in " + rel + ": " + abbreviate(from);
                        failure = fail(FailureCategory.BUILD_FAILED, r, detail, List.of(detail));
                        break;
                    }
                    InsideTree.write(dest, rel, text.replace(from, to).getBytes(StandardCharsets.UTF_8));
                    detail = String.format(Locale.ROOT, "replaced %d occurrence%s in %s", count, count == 1 ? "" : "s",
                            rel);
                } catch (IOException e) {
                    detail = "cannot edit " + rel + ": " + e.getMessage();
                    failure = fail(FailureCategory.BUILD_FAILED, r, detail, List.of(detail));
                }
            }
            default -> throw new IllegalStateException(kind);
        }
        log.append("# recipe ").append(r.name()).append(": ").append(failure == null ? "ok" : "FAILED").append(" — ")
                .append(detail).append('\n');
        applied.add(new RecipeApplication(r.name(), kind, r.params(), failure == null, detail));
        return failure;
    }

    /** What the recipes and the build step left: their records, the arm's variables, and the failure if any. */
    record SetUp(List<RecipeApplication> applied, Map<String, String> env, BuildStep build, Failure failure) {
    }

    /**
     * Applies {@code setup}'s recipes in order in {@code dest} (the first failure stops), then runs its build step
     * there with the variables so far ({@code env}, which the recipes extend); the log gets every step.
     */
    static SetUp recipesAndBuild(Path dest, ArmSetup setup, Map<String, String> env, StringBuilder log) {
        List<RecipeApplication> applied = new ArrayList<>();
        for (Recipe r : setup.recipes()) {
            Failure f = apply(r, dest, env, setup, applied, log);
            if (f != null) {
                log.append("# ").append(f.category()).append(": ").append(f.detail()).append('\n');
                return new SetUp(applied, env, null, f);
            }
        }
        if (setup.build().isEmpty()) {
            return new SetUp(applied, env, null, null);
        }
        log.append("$ (").append(dest).append(") ").append(String.join(" ", setup.build()))
                .append("   # build, limit ").append(setup.buildTimeoutS()).append(" s\n");
        BuildStep build = run(setup.build(), dest, env, setup.buildTimeoutS(), setup.groupStarted(), setup.walls());
        log.append(build.log());
        if (!build.log().isEmpty() && !build.log().endsWith("\n")) {
            log.append('\n');
        }
        log.append("# build ").append(build.status()).append(" in ")
                .append(String.format(Locale.ROOT, "%.0f", build.durationMs())).append(" ms")
                .append(build.exitCode() == null ? "" : " (exit " + build.exitCode() + ")").append('\n');
        if (!build.ok()) {
            Failure f = buildFailure(build, setup.buildTimeoutS());
            log.append("# ").append(f.category()).append(": ").append(f.detail()).append('\n');
            return new SetUp(applied, env, build, f);
        }
        return new SetUp(applied, env, build, null);
    }

    private static Failure fail(FailureCategory c, Recipe r, String detail, List<String> evidence) {
        return new Failure(c, "fix recipe '" + r.name() + "' (" + r.kind().key() + ") failed: " + detail, evidence);
    }

    /** The classified failure of a build that did not succeed. */
    static Failure buildFailure(BuildStep b, int timeoutS) {
        String cmd = String.join(" ", b.argv());
        if (b.timedOut()) {
            return new Failure(FailureCategory.BUILD_FAILED, "build timed out after " + timeoutS + " s: " + cmd,
                    lastLines(b.log(), 5));
        }
        if (b.exitCode() == null) {
            return new Failure(FailureCategory.ENV_MISSING, "build command " + b.argv().get(0) + " cannot run: "
                    + b.log().strip() + " (fix: install it or correct engine.build)", List.of(b.log().strip()));
        }
        List<String> tail = lastLines(b.log(), 5);
        return new Failure(FailureCategory.BUILD_FAILED, "build exited with " + b.exitCode() + ": " + cmd
                + (tail.isEmpty() ? "" : " — " + tail.get(tail.size() - 1)), tail);
    }

    /**
     * Runs argv in {@code cwd} with {@code env} added, in its own process group (the one launcher of every child: a
     * resumed session reaps it from the placeholder {@code groupStarted} records), output captured whole in the arm's
     * scratch folder; the group is torn down past the limit and on every other path.
     */
    static BuildStep run(List<String> argv, Path cwd, Map<String, String> env, int timeoutS,
                         LongConsumer groupStarted) {
        return run(argv, cwd, env, timeoutS, groupStarted, null);
    }

    /**
     * As {@link #run(List, Path, Map, int, LongConsumer)}, inside {@code walls} (the arm's build step: it runs the
     * arm's code); null: isobench's environment plus {@code env}, no sandbox (the suite author's own steps).
     */
    static BuildStep run(List<String> argv, Path cwd, Map<String, String> env, int timeoutS,
                         LongConsumer groupStarted, ArmWalls walls) {
        long t0 = System.nanoTime();
        Path out = null;
        try {
            Path scratch = Files.createDirectories(Worktrees.scratch(cwd));
            out = Files.createTempFile(scratch, "build-", ".log");
            ProcessGroup pg = walls == null ? ProcessGroup.start(argv, cwd, env, out)
                    : ProcessGroup.startMeasured(walls.argv(cwd, argv, null), cwd, walls.env(env), out);
            Integer exit;
            try {
                groupStarted.accept(pg.pgid());
                exit = pg.waitFor(Duration.ofSeconds(timeoutS));
            } finally {
                pg.terminate(Duration.ofSeconds(5));
            }
            String log = ProcessGroup.readLog(out);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (exit != null && exit != 0 && ProcessGroup.couldNotExecute(log)) {
                return new BuildStep(argv, null, ms, false, log); // the program does not exist or cannot run
            }
            return new BuildStep(argv, exit, ms, exit == null, log);
        } catch (IOException e) {
            return new BuildStep(argv, null, (System.nanoTime() - t0) / 1e6, false, e.getMessage() + "\n");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new BuildStep(argv, null, (System.nanoTime() - t0) / 1e6, false, "interrupted\n");
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException e) {
                    // temp file
                }
            }
        }
    }

    static List<String> lastLines(String text, int n) {
        List<String> lines = new ArrayList<>();
        for (String l : text.split("\n")) {
            if (!l.isBlank()) {
                lines.add(l.strip());
            }
        }
        return lines.subList(Math.max(0, lines.size() - n), lines.size());
    }

    static String python() {
        String p = System.getenv("ISOBENCH_PYTHON");
        return p == null || p.isBlank() ? "python3" : p;
    }

    private static String abbreviate(String s) {
        String t = s.replace("\n", "\\n");
        return "\"" + (t.length() > 60 ? t.substring(0, 60) + "…" : t) + "\"";
    }
}
