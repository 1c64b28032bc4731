package io.isobench.loadgen;

import io.isobench.SharedData;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Llama-2 SentencePiece reference files, made at test time (nothing of the 32,000-token vocabulary is committed):
 * llama2.c's {@code tokenizer.bin} is taken from {@code ../shared/engines/llama2.c.bundle} ({@code git clone}) and
 * {@code src/test/resources/tokenizers/llama2/spm_reference.py} (python3, standard library) turns it into HF
 * {@code tokenizer.json} files and a vocabulary-only GGUF under {@code target/llama2-spm/}. Skips with a message when
 * the bundle, git or python3 is absent.
 */
final class Llama2Spm {

    static final Path RESOURCES = Path.of("src", "test", "resources", "tokenizers", "llama2");
    static final Path WORK = Path.of("target", "llama2-spm");

    private Llama2Spm() {
    }

    /** llama2.c's tokenizer.bin (the real Llama-2 vocabulary and scores). */
    static synchronized Path tokenizerBin() {
        Path bundle = SharedData.require("engines/llama2.c.bundle");
        Path bin = WORK.resolve("tokenizer.bin");
        if (!Files.isRegularFile(bin)) {
            Path clone;
            try {
                Files.createDirectories(WORK);
                clone = Files.createTempDirectory(WORK.toAbsolutePath(), "llama2.c-").resolve("repo");
            } catch (IOException e) {
                throw new AssertionError("cannot make a folder under " + WORK + ": " + e);
            }
            run(List.of("git", "clone", "--quiet", bundle.toString(), clone.toString()));
            try {
                Files.copy(clone.resolve("tokenizer.bin"), bin, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new AssertionError("cannot copy tokenizer.bin out of " + clone + ": " + e);
            }
        }
        return bin;
    }

    /** The HF tokenizer.json: {@code legacy} (Prepend + Replace normalizer) or {@code metaspace} (pre-tokenizer). */
    static synchronized Path tokenizerJson(String style) {
        Path out = WORK.resolve("tokenizer-" + style + "-" + generatorHash() + ".json");
        if (!Files.isRegularFile(out)) {
            generate(out, "--tokenizer-json", "--style", style);
        }
        return out;
    }

    /** The vocabulary-only GGUF llama.cpp tokenizes with. */
    static synchronized Path gguf() {
        Path out = WORK.resolve("llama2-vocab-" + generatorHash() + ".gguf");
        if (!Files.isRegularFile(out)) {
            generate(out, "--gguf");
        }
        return out;
    }

    /** A short digest of spm_reference.py: files made by an older generator are not reused. */
    private static String generatorHash() {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(RESOURCES.resolve("spm_reference.py")));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new AssertionError("cannot read the generator: " + e);
        }
    }

    /** Runs the generator with {@code flag PART [more...]}, then renames PART to {@code out} (no half files). */
    private static void generate(Path out, String flag, String... more) {
        Path bin = tokenizerBin();
        Path part = out.resolveSibling(out.getFileName() + ".part");
        List<String> cmd = new ArrayList<>(List.of("python3", RESOURCES.resolve("spm_reference.py").toString(),
                bin.toString(), flag, part.toString()));
        cmd.addAll(List.of(more));
        run(cmd);
        try {
            Files.move(part, out, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new AssertionError("cannot rename " + part + ": " + e);
        }
    }

    static void run(List<String> cmd) {
        Assumptions.assumeTrue(onPath(cmd.get(0)), () -> "skipped: " + cmd.get(0) + " is not on PATH");
        try {
            Files.createDirectories(WORK);
            Path log = Files.createTempFile(WORK.toAbsolutePath(), "cmd", ".txt");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(cmd + " ran past 300 s: " + Files.readString(log));
            }
            String text = Files.readString(log);
            Files.delete(log);
            if (p.exitValue() != 0) {
                throw new AssertionError(cmd + " exited " + p.exitValue() + ": " + text);
            }
        } catch (IOException e) {
            throw new AssertionError(cmd + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(cmd + ": interrupted");
        }
    }

    static boolean onPath(String exe) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, exe))) {
                return true;
            }
        }
        return false;
    }
}
