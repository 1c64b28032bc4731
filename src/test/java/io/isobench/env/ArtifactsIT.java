package io.isobench.env;

import io.isobench.SharedData;
import io.isobench.parse.FailureCategory;
import io.isobench.task.ArtifactSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The prebuilt-artifact strategy with real installers and artifacts made here (no network): an npm package packed
 * with {@code npm pack}, a pip wheel with a vLLM-style version carrying its commit, a tarball and a binary with
 * check commands. Each installs into its own prefix and is verified; a wrong version, a wrong checksum and a check
 * that prints something else are {@code ENV_MISMATCH}, a missing artifact {@code ENV_MISSING}.
 */
class ArtifactsIT {

    @TempDir
    Path dir;

    static ArtifactSpec.Resolved resolved(ArtifactSpec.Type type, String pkg, Path source, String commit,
                                          String version, String sha, List<String> check, String expect,
                                          ArtifactSpec.Verify verify) {
        return new ArtifactSpec.Resolved(type, pkg, source.toString(), commit, version, sha, check, expect, verify);
    }

    Environment prepare(ArtifactSpec.Resolved a, String arm) {
        Path prefix = dir.resolve("work/envs/t").resolve(arm);
        return Artifacts.prepare(a, prefix, Artifacts.cacheFor(prefix), ArmSetup.NONE);
    }

    @Test
    void anNpmPackageIsInstalledIntoItsOwnPrefixAndItsVersionVerified() throws Exception {
        SharedData.requireService(onPath("npm") && onPath("node"), "node and npm");
        Path pkg = Files.createDirectories(dir.resolve("pkg"));
        Files.writeString(pkg.resolve("package.json"), "{\"name\": \"tiny-engine\", \"version\": \"1.0.0\","
                + " \"bin\": {\"tiny-engine\": \"bin.js\"}}");
        Files.writeString(pkg.resolve("bin.js"), "#!/usr/bin/env node\nconsole.log('tiny-engine 1.0.0');\n");
        Process p = new ProcessBuilder("npm", "pack", "--silent", "--pack-destination", dir.toString())
                .directory(pkg.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        Path tgz = dir.resolve("tiny-engine-1.0.0.tgz");
        String sha = Artifacts.sha256(tgz);

        Environment ok = prepare(resolved(ArtifactSpec.Type.NPM, "tiny-engine", tgz, "v1.0.0", "1.0.0", sha,
                List.of("tiny-engine"), "tiny-engine 1.0.0", ArtifactSpec.Verify.VERSION), "baseline");
        assertThat(ok.failure()).as(ok.log()).isNull();
        assertThat(ok.artifact()).containsEntry("installed_version", "1.0.0").containsEntry("sha256", sha)
                .containsEntry("check_output", "tiny-engine 1.0.0");
        assertThat(ok.envRef()).isEqualTo("artifact:npm:tiny-engine@1.0.0+sha256:" + sha.substring(0, 12));
        assertThat(ok.env().get("PATH")).startsWith(ok.path().resolve("node_modules/.bin").toString());
        assertThat(ok.path().resolve("node_modules/tiny-engine/package.json")).exists();
        Environment aa = prepare(resolved(ArtifactSpec.Type.NPM, "tiny-engine", tgz, "v1.0.0", "1.0.0", sha,
                List.of(), "", ArtifactSpec.Verify.VERSION), "baseline-aa");
        assertThat(aa.failure()).isNull();
        assertThat(aa.path()).isNotEqualTo(ok.path());

        Environment wrongVersion = prepare(resolved(ArtifactSpec.Type.NPM, "tiny-engine", tgz, "v1.1.0", "1.1.0",
                null, List.of(), "", ArtifactSpec.Verify.VERSION), "human");
        assertThat(wrongVersion.failure().category()).isEqualTo(FailureCategory.ENV_MISMATCH);
        assertThat(wrongVersion.failure().detail()).isEqualTo("installed tiny-engine 1.0.0, the arm needs 1.1.0");
        assertThat(wrongVersion.artifact()).containsEntry("installed_version", "1.0.0");

        Environment wrongSum = prepare(resolved(ArtifactSpec.Type.NPM, "tiny-engine", tgz, "v1.0.0", "1.0.0",
                "0".repeat(64), List.of(), "", ArtifactSpec.Verify.VERSION), "human");
        assertThat(wrongSum.failure().category()).isEqualTo(FailureCategory.ENV_MISMATCH);
        assertThat(wrongSum.failure().detail()).isEqualTo("artifact tiny-engine-1.0.0.tgz has sha256 " + sha
                + ", the suite expects " + "0".repeat(64) + " for 1.0.0");

        Environment missing = prepare(resolved(ArtifactSpec.Type.NPM, "tiny-engine", dir.resolve("nope.tgz"), "v2",
                "2", null, List.of(), "", ArtifactSpec.Verify.VERSION), "human");
        assertThat(missing.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(missing.failure().detail()).startsWith("artifact " + dir.resolve("nope.tgz")
                + " cannot be fetched: no such file");
    }

    @Test
    void aWheelMustCarryTheArmsCommitInItsVersion() throws Exception {
        String python = System.getenv().getOrDefault("ISOBENCH_PYTHON", "python3");
        Process pip = new ProcessBuilder(python, "-m", "pip", "--version").redirectErrorStream(true).start();
        SharedData.requireService(pip.waitFor() == 0, python + " with pip");
        String version = "0.6.4.dev12+g1234abcd";
        Path whl = dir.resolve("tinyvllm-" + version + "-py3-none-any.whl");
        String info = "tinyvllm-" + version + ".dist-info/";
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(whl))) {
            entry(z, "tinyvllm/__init__.py", "__version__ = '" + version + "'\n");
            entry(z, info + "METADATA", "Metadata-Version: 2.1\nName: tinyvllm\nVersion: " + version + "\n");
            entry(z, info + "WHEEL", "Wheel-Version: 1.0\nGenerator: isobench-test\nRoot-Is-Purelib: true\n"
                    + "Tag: py3-none-any\n");
            entry(z, info + "RECORD", "");
        }
        Environment ok = prepare(resolved(ArtifactSpec.Type.PIP, "tinyvllm", whl, "1234abcd5678ef", "1234abcd5678ef",
                null, List.of(python, "-c", "import tinyvllm; print(tinyvllm.__version__)"), "+g1234abc",
                ArtifactSpec.Verify.COMMIT), "human");
        assertThat(ok.failure()).as(ok.log()).isNull();
        assertThat(ok.artifact()).containsEntry("installed_version", version);
        assertThat(ok.env().get("PYTHONPATH")).startsWith(ok.path().resolve("site").toString());
        Environment other = prepare(resolved(ArtifactSpec.Type.PIP, "tinyvllm", whl, "deadbeef", "deadbeef", null,
                List.of(), "", ArtifactSpec.Verify.COMMIT), "baseline");
        assertThat(other.failure().category()).isEqualTo(FailureCategory.ENV_MISMATCH);
        assertThat(other.failure().detail()).isEqualTo("installed tinyvllm " + version
                + ", the arm needs a version with commit deadbeef");
    }

    @Test
    void tarballsAndBinariesAreVerifiedByTheirCheckCommand() throws Exception {
        Path tool = dir.resolve("src/bin/tool");
        Files.createDirectories(tool.getParent());
        Files.writeString(tool, "#!/bin/sh\necho tool 2.0\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path tar = dir.resolve("tool-2.0.tar.gz");
        Process t = new ProcessBuilder("tar", "-czf", tar.toString(), "-C", dir.resolve("src").toString(), "bin")
                .start();
        assertThat(t.waitFor()).isZero();
        Environment tarOk = prepare(resolved(ArtifactSpec.Type.TARBALL, "tool", tar, "2.0", "2.0", null,
                List.of("tool"), "tool 2.0", ArtifactSpec.Verify.VERSION), "baseline");
        assertThat(tarOk.failure()).as(tarOk.log()).isNull();
        assertThat(tarOk.path().resolve("bin/tool")).isExecutable();
        Environment tarBad = prepare(resolved(ArtifactSpec.Type.TARBALL, "tool", tar, "3.0", "3.0", null,
                List.of("tool"), "tool 3.0", ArtifactSpec.Verify.VERSION), "human");
        assertThat(tarBad.failure().category()).isEqualTo(FailureCategory.ENV_MISMATCH);
        assertThat(tarBad.failure().detail()).isEqualTo("check tool printed tool 2.0, not tool 3.0");

        Environment bin = prepare(resolved(ArtifactSpec.Type.BINARY, "srv", tool, "2.0", "2.0", null,
                List.of("srv"), "tool 2.0", ArtifactSpec.Verify.VERSION), "baseline");
        assertThat(bin.failure()).as(bin.log()).isNull();
        assertThat(bin.path().resolve("bin/srv")).isExecutable();
    }

    private static void entry(ZipOutputStream z, String name, String text) throws IOException {
        z.putNextEntry(new ZipEntry(name));
        OutputStream o = z;
        o.write(text.getBytes(StandardCharsets.UTF_8));
        z.closeEntry();
    }

    static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }
}
