package io.isobench.task;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Arms from a prebuilt artifact per commit instead of a source build ({@code engine.artifact}): a package named by a
 * template, fetched or read from a local folder, checked by sha256, installed into a prefix of the arm's own and
 * verified (docs/suite-format.md, "Prebuilt-artifact arms").
 *
 * @param type        how it is installed
 * @param packageName the npm or pip package whose installed version is verified; for tarball and binary the name of
 *                    the installed program (binary) or null
 * @param source      template of where the artifact is: {@code npm:SPEC} (npm pack from the registry or its cache), an
 *                    {@code https://} URL, or a path (relative to the suite's folder); placeholders {@code {commit}}
 *                    (the arm's commit as the suite names it), {@code {version}} (the arm's version),
 *                    {@code {suite_dir}}
 * @param sha256      expected checksums by version (or commit); an artifact whose checksum differs is
 *                    {@code ENV_MISMATCH}; versions not listed are recorded only
 * @param check       a command run in the arm's prefix after the install (argv, no shell, placeholders
 *                    {@code {version} {commit}}); its output must contain {@code expect}; empty: none (npm and pip
 *                    verify the installed package's own metadata; tarball and binary need a check)
 * @param expect      what the check's output must contain (template, default {@code {version}})
 * @param verify      what the installed package's version must show: the arm's {@code version} (default) or its
 *                    {@code commit} (vLLM: the commit id in its version metadata, e.g. {@code 0.6.4.dev12+g1234abcd})
 */
public record ArtifactSpec(Type type, String packageName, String source, Map<String, String> sha256,
                           List<String> check, String expect, Verify verify) {

    /** How an artifact is installed into the arm's prefix. */
    public enum Type {
        /** {@code npm install --prefix PREFIX FILE.tgz}. */
        NPM,
        /** {@code python3 -m pip install --target PREFIX/site FILE.whl} (PYTHONPATH, PATH). */
        PIP,
        /** {@code tar -xf FILE -C PREFIX} (PATH gets PREFIX/bin and PREFIX). */
        TARBALL,
        /** The file copied to {@code PREFIX/bin/NAME}, executable (PATH). */
        BINARY;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What the installed version is compared with. */
    public enum Verify {
        VERSION, COMMIT;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final List<String> PLACEHOLDERS = List.of("{commit}", "{version}", "{suite_dir}");

    public ArtifactSpec {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(source, "source");
        sha256 = sha256 == null ? Map.of() : Map.copyOf(sha256);
        check = check == null ? List.of() : List.copyOf(check);
        expect = expect == null ? "{version}" : expect;
        verify = verify == null ? Verify.VERSION : verify;
        if ((type == Type.NPM || type == Type.PIP) && packageName == null) {
            throw new IllegalArgumentException(type.label() + " artifacts need the package name");
        }
        if ((type == Type.TARBALL || type == Type.BINARY) && check.isEmpty()) {
            throw new IllegalArgumentException(type.label() + " artifacts need a check command");
        }
    }

    /**
     * One arm's artifact, every template filled in: what the plan shows and the environment installs.
     *
     * @param type        how it is installed
     * @param packageName the package (or program) name
     * @param source      where it is: {@code npm:SPEC}, a URL or an absolute path
     * @param commit      the arm's commit as the suite names it
     * @param version     the version the arm must have installed
     * @param sha256      the expected checksum; null: recorded only
     * @param check       the check command (empty: none)
     * @param expect      what the check's output must contain
     * @param verify      what the package metadata's version is compared with
     */
    public record Resolved(Type type, String packageName, String source, String commit, String version, String sha256,
                           List<String> check, String expect, Verify verify) {
        public Resolved {
            check = List.copyOf(check);
        }

        /** The value the installed package's version must show. */
        public String expectedVersion() {
            return verify == Verify.COMMIT ? commit : version;
        }

        /**
         * The command that installs the fetched {@code file} into {@code prefix} (empty for a binary, which is copied
         * to {@code PREFIX/bin/NAME}): a pure function, so a plan can show it.
         */
        public List<String> installArgv(String file, Path prefix, String python) {
            return switch (type) {
                case NPM -> List.of("npm", "install", "--prefix", prefix.toString(), "--no-save", "--no-package-lock",
                        "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", file);
                case PIP -> List.of(python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
                        "--no-warn-script-location", "--target", prefix.resolve("site").toString(), file);
                case TARBALL -> List.of("tar", "-xf", file, "-C", prefix.toString());
                case BINARY -> List.of();
            };
        }

        /**
         * The variables the arm's commands get: its prefix first on PATH (npm: node_modules/.bin; pip: site/bin;
         * tarball: bin and the prefix; binary: bin) and, for pip, on PYTHONPATH; {@code path} and {@code pythonPath}
         * are the inherited values (null: none).
         */
        public Map<String, String> variables(Path prefix, String path, String pythonPath) {
            Map<String, String> env = new LinkedHashMap<>();
            String bin = switch (type) {
                case NPM -> prefix.resolve("node_modules/.bin").toString();
                case PIP -> prefix.resolve("site/bin").toString();
                case TARBALL -> prefix.resolve("bin") + ":" + prefix;
                case BINARY -> prefix.resolve("bin").toString();
            };
            env.put("PATH", bin + (path == null || path.isEmpty() ? "" : ":" + path));
            if (type == Type.PIP) {
                env.put("PYTHONPATH", prefix.resolve("site") + (pythonPath == null || pythonPath.isEmpty() ? ""
                        : ":" + pythonPath));
            }
            return env;
        }

        /** For plans and the store. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", type.label());
            m.put("package", packageName);
            m.put("source", source);
            m.put("commit", commit);
            m.put("version", version);
            m.put("sha256_expected", sha256);
            m.put("verify", verify.label());
            if (!check.isEmpty()) {
                m.put("check", check);
                m.put("expect", expect);
            }
            return m;
        }
    }

    /**
     * The artifact of one arm: the task's own source for the arm (else this template), its version (the task's, else
     * the commit), every placeholder filled in; a relative path resolves against {@code suiteDir}.
     */
    public Resolved resolve(String commit, String versionOrNull, String sourceOverride, Path suiteDir) {
        String version = versionOrNull != null ? versionOrNull : commit;
        String src = fill(sourceOverride != null ? sourceOverride : source, commit, version);
        if (!src.startsWith("npm:") && !src.matches("(?i)https?://.+")) {
            Path p = Path.of(src);
            src = (p.isAbsolute() || suiteDir == null ? p : suiteDir.resolve(p)).normalize().toString();
        }
        String sum = sha256.containsKey(version) ? sha256.get(version) : sha256.get(commit);
        return new Resolved(type, packageName, src, commit, version, sum,
                check.stream().map(w -> fill(w, commit, version)).toList(), fill(expect, commit, version), verify);
    }

    private static String fill(String template, String commit, String version) {
        return template.replace("{commit}", commit).replace("{version}", version);
    }
}
