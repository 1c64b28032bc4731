package io.isobench.env;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.task.ArtifactSpec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The prebuilt-artifact strategy (docs/suite-format.md, "Prebuilt-artifact arms"): the arm's artifact is fetched
 * ({@code npm:SPEC} through {@code npm pack}, an {@code https://} URL) or read from a local path, its sha256 computed
 * and compared with the suite's, installed into a prefix of the arm's own (arms never share an install, the A/A arm
 * included), and verified: the installed package's own version (npm's package.json, pip's dist-info) must be the
 * arm's version (or carry its commit id), and the declared check command's output must contain what the suite
 * expects. Any mismatch is {@code ENV_MISMATCH}; what cannot be fetched or installed is {@code ENV_MISSING}. Never
 * throws for those: they are {@link Environment#failure()} outcomes, with everything recorded.
 */
public final class Artifacts {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Artifacts() {
    }

    /**
     * Prepares {@code prefix} for one arm: fetch into {@code cache} (shared by the arms: the file, never the install),
     * checksum, install, verify, then the suite's recipes and build step in the prefix.
     */
    public static Environment prepare(ArtifactSpec.Resolved a, Path prefix, Path cache, ArmSetup setup) {
        StringBuilder log = new StringBuilder();
        Map<String, Object> rec = new LinkedHashMap<>(a.toMap());
        rec.put("prefix", prefix.toString());
        int limit = setup.buildTimeoutS();
        Path file;
        try {
            Files.createDirectories(cache);
            file = fetch(a, cache, setup, log);
        } catch (IOException e) {
            return fail(a, prefix, rec, FailureCategory.ENV_MISSING, "artifact " + a.source() + " cannot be fetched: "
                    + e.getMessage(), log);
        }
        String sha;
        try {
            sha = sha256(file);
            rec.put("file", file.toString());
            rec.put("bytes", Files.size(file));
            rec.put("sha256", sha);
        } catch (IOException e) {
            return fail(a, prefix, rec, FailureCategory.ENV_MISSING, "artifact " + file + " cannot be read: "
                    + e.getMessage(), log);
        }
        log.append("# ").append(file.getFileName()).append(" sha256 ").append(sha).append('\n');
        if (a.sha256() != null && !a.sha256().equals(sha)) {
            return fail(a, prefix, rec, FailureCategory.ENV_MISMATCH, "artifact " + file.getFileName() + " has sha256 "
                    + sha + ", the suite expects " + a.sha256() + " for " + a.version(), log);
        }
        try {
            deleteTree(prefix);
            Files.createDirectories(prefix);
        } catch (IOException e) {
            return fail(a, prefix, rec, FailureCategory.DISK_FULL, "cannot clear " + prefix + ": " + e.getMessage(), log);
        }
        Map<String, String> env = new LinkedHashMap<>();
        Failure installed = install(a, file, prefix, env, setup, log);
        if (installed != null) {
            return fail(a, prefix, rec, installed.category(), installed.detail(), log);
        }
        String version = installedVersion(a, prefix);
        rec.put("installed_version", version);
        rec.put("expected_version", a.expectedVersion());
        if ((a.type() == ArtifactSpec.Type.NPM || a.type() == ArtifactSpec.Type.PIP) && !versionMatches(a, version)) {
            return fail(a, prefix, rec, FailureCategory.ENV_MISMATCH, "installed " + a.packageName() + " "
                    + (version == null ? "has no version metadata" : version) + ", the arm needs "
                    + (a.verify() == ArtifactSpec.Verify.COMMIT ? "a version with commit " : "") + a.expectedVersion(),
                    log);
        }
        if (!a.check().isEmpty()) {
            log.append("$ (").append(prefix).append(") ").append(String.join(" ", a.check())).append("   # check\n");
            BuildStep check = Recipes.run(onPath(a.check(), env), prefix, env, limit, setup.groupStarted());
            log.append(check.log());
            String out = check.log().strip();
            rec.put("check_output", out.length() > 500 ? out.substring(out.length() - 500) : out);
            if (!check.ok() || !check.log().contains(a.expect())) {
                return fail(a, prefix, rec, check.exitCode() == null && !check.timedOut()
                        ? FailureCategory.ENV_MISSING : FailureCategory.ENV_MISMATCH, "check "
                        + String.join(" ", a.check()) + (check.ok() ? " printed " + lastLine(check.log())
                        + ", not " + a.expect() : " " + check.status() + (check.exitCode() == null ? ""
                        : " (exit " + check.exitCode() + ")") + ": " + lastLine(check.log())), log);
            }
        }
        Recipes.SetUp done = Recipes.recipesAndBuild(prefix, setup, env, log);
        String ref = "artifact:" + a.type().label() + ":" + a.packageName() + "@"
                + (version == null ? a.version() : version) + "+sha256:" + sha.substring(0, 12);
        log.append("# ").append(ref).append(" installed in ").append(prefix).append('\n');
        return new Environment(prefix, new Environment.Identity(a.commit(), null, null,
                done.failure() == null ? ref : null), done.failure(), log.toString(),
                new Environment.Preparation(done.applied(), done.build(), done.env(), rec));
    }

    /**
     * The artifact file: {@code npm pack} into the cache, a download into it, or the local path. Cached files are
     * keyed by what names the artifact, never by a file name alone: a folder per source ({@code npm:SPEC} or the
     * whole URL) and expected sha256 ({@link #cacheKey}), so {@code …/v2.0/tool} never reuses {@code …/v1.0/tool}.
     * A cached download whose sha256 is not the one the suite expects is fetched again.
     */
    static Path fetch(ArtifactSpec.Resolved a, Path cache, ArmSetup setup, StringBuilder log) throws IOException {
        int limitS = setup.buildTimeoutS();
        String src = a.source();
        if (src.startsWith("npm:")) {
            Path dir = Files.createDirectories(cache.resolve(cacheKey(src, a.sha256())));
            List<String> argv = List.of("npm", "pack", src.substring(4), "--pack-destination", dir.toString(),
                    "--json", "--silent");
            log.append("$ ").append(String.join(" ", argv)).append('\n');
            BuildStep pack = Recipes.run(argv, dir, Map.of(), limitS, setup.groupStarted());
            if (!pack.ok()) {
                throw new IOException("npm pack " + pack.status() + ": " + lastLine(pack.log()));
            }
            JsonNode j = JSON.readTree(pack.log().substring(Math.max(0, pack.log().indexOf('['))));
            return dir.resolve(j.path(0).path("filename").asText());
        }
        if (src.matches("(?i)https?://.+")) {
            String name = src.replaceAll("[?#].*$", "");
            name = name.substring(name.lastIndexOf('/') + 1);
            // the file keeps its own name (pip reads a wheel's tags from it) inside the source's own folder
            Path dest = cache.resolve(cacheKey(src, a.sha256())).resolve(name.isEmpty() ? "artifact" : name);
            if (Files.isRegularFile(dest) && a.sha256() != null && !a.sha256().equals(sha256(dest))) {
                log.append("# cached ").append(dest).append(" is not sha256 ").append(a.sha256())
                        .append(": downloading again\n");
                Files.delete(dest);
            }
            if (!Files.isRegularFile(dest)) {
                Files.createDirectories(dest.getParent());
                log.append("# download ").append(src).append('\n');
                download(URI.create(src), dest, limitS);
            } else {
                log.append("# cached ").append(src).append(" (").append(dest).append(")\n");
            }
            return dest;
        }
        Path p = Path.of(src);
        if (!Files.isRegularFile(p)) {
            throw new IOException("no such file " + p);
        }
        return p;
    }

    /**
     * The cache folder of an artifact: the first 32 hex digits of the SHA-256 of its whole source ({@code npm:SPEC}
     * or URL, query included) and the sha256 the suite expects (none: empty).
     */
    static String cacheKey(String source, String expectedSha256) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(source.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update((expectedSha256 == null ? "" : expectedSha256).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest()).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void download(URI uri, Path dest, int limitS) throws IOException {
        HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(30)).build();
        Path tmp = dest.resolveSibling(dest.getFileName() + ".part");
        try {
            HttpResponse<Path> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(limitS)).build(),
                    HttpResponse.BodyHandlers.ofFile(tmp));
            if (r.statusCode() / 100 != 2) {
                throw new IOException("HTTP " + r.statusCode() + " for " + uri);
            }
            Files.move(tmp, dest, StandardCopyOption.REPLACE_EXISTING);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Installs the file into the prefix; the arm's variables go into {@code env}; null on success. */
    static Failure install(ArtifactSpec.Resolved a, Path file, Path prefix, Map<String, String> env, ArmSetup setup,
                           StringBuilder log) {
        env.putAll(a.variables(prefix, System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                System.getenv("PYTHONPATH")));
        List<String> argv = a.installArgv(file.toString(), prefix, Recipes.python());
        if (a.type() == ArtifactSpec.Type.BINARY) {
            try {
                Path bin = Files.createDirectories(prefix.resolve("bin")).resolve(a.packageName());
                Files.copy(file, bin, StandardCopyOption.REPLACE_EXISTING);
                Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
                log.append("# installed ").append(file).append(" as ").append(bin).append('\n');
                return null;
            } catch (IOException e) {
                return new Failure(FailureCategory.ENV_MISSING, "cannot install " + file + ": " + e.getMessage(),
                        List.of());
            }
        }
        log.append("$ (").append(prefix).append(") ").append(String.join(" ", argv)).append('\n');
        BuildStep run = Recipes.run(argv, prefix, Map.of(), setup.buildTimeoutS(), setup.groupStarted());
        log.append(run.log());
        if (run.ok()) {
            return null;
        }
        String detail = a.type().label() + " install of " + file.getFileName() + " " + run.status()
                + (run.exitCode() == null ? "" : " (exit " + run.exitCode() + ")") + ": " + lastLine(run.log());
        FailureCategory c = a.type() == ArtifactSpec.Type.PIP && run.log().matches("(?s).*(ResolutionImpossible"
                + "|conflicting dependencies).*") ? FailureCategory.DEPENDENCY_CONFLICT : FailureCategory.ENV_MISSING;
        return new Failure(c, detail, Recipes.lastLines(run.log(), 5));
    }

    /** The version the installed package reports about itself: npm's package.json, pip's dist-info METADATA. */
    static String installedVersion(ArtifactSpec.Resolved a, Path prefix) {
        try {
            if (a.type() == ArtifactSpec.Type.NPM) {
                Path pj = prefix.resolve("node_modules").resolve(a.packageName()).resolve("package.json");
                return Files.isRegularFile(pj) ? JSON.readTree(pj.toFile()).path("version").asText(null) : null;
            }
            if (a.type() == ArtifactSpec.Type.PIP) {
                String norm = a.packageName().toLowerCase(Locale.ROOT).replaceAll("[-_.]+", "_");
                Path site = prefix.resolve("site");
                if (!Files.isDirectory(site)) {
                    return null;
                }
                try (Stream<Path> s = Files.list(site)) {
                    for (Path d : s.toList()) {
                        String n = d.getFileName().toString().toLowerCase(Locale.ROOT);
                        if (n.endsWith(".dist-info") && n.replaceAll("[-.]+", "_").startsWith(norm + "_")) {
                            for (String l : Files.readAllLines(d.resolve("METADATA"), StandardCharsets.UTF_8)) {
                                if (l.startsWith("Version:")) {
                                    return l.substring(8).strip();
                                }
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    /**
     * The argv with its program found on the arm's PATH (the prefix first): Java looks a bare program name up on its
     * own PATH, not the child's.
     */
    static List<String> onPath(List<String> argv, Map<String, String> env) {
        String prog = argv.get(0);
        if (prog.contains("/")) {
            return argv;
        }
        for (String d : env.getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, prog);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                List<String> out = new ArrayList<>(argv);
                out.set(0, p.toString());
                return out;
            }
        }
        return argv;
    }

    /** The installed version is the arm's ({@code verify: version}), or carries its commit id ({@code commit}). */
    static boolean versionMatches(ArtifactSpec.Resolved a, String installed) {
        if (installed == null) {
            return false;
        }
        if (a.verify() == ArtifactSpec.Verify.COMMIT) {
            String c = a.commit().toLowerCase(Locale.ROOT);
            String shortId = c.substring(0, Math.min(7, c.length()));
            return installed.toLowerCase(Locale.ROOT).matches(".*[+.g]" + Pattern.quote(shortId) + ".*");
        }
        return installed.equals(a.version());
    }

    private static Environment fail(ArtifactSpec.Resolved a, Path prefix, Map<String, Object> rec,
                                    FailureCategory category, String detail, StringBuilder log) {
        log.append("# ").append(category).append(": ").append(detail).append('\n');
        return new Environment(prefix, new Environment.Identity(a.commit(), null, null, null),
                new Failure(category, detail, List.of(detail)), log.toString(),
                new Environment.Preparation(List.of(), null, Map.of(), rec));
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String lastLine(String text) {
        List<String> l = Recipes.lastLines(text, 1);
        return l.isEmpty() ? "(no output)" : l.get(0);
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }

    /** The arms' shared download folder beside the environments: {@code WORKDIR/artifacts} for {@code WORKDIR/envs/T/A}. */
    public static Path cacheFor(Path prefix) {
        return prefix.getParent().getParent().resolveSibling("artifacts");
    }

}
