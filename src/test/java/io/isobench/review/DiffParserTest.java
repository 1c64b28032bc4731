package io.isobench.review;

import io.isobench.review.PatchFile.Kind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DiffParserTest {

    @Test
    void parsesGitDiffWithLineNumbers() {
        DiffParser.Parsed p = DiffParser.parse(Fixtures.toy("human/throughput.patch"));
        assertThat(p.unparsedLines()).isZero();
        assertThat(p.files()).extracting(PatchFile::path).containsExactly("toyllm/config.py", "toyllm/engine/scheduler.py");
        PatchFile sched = p.files().get(1);
        assertThat(sched.hunks()).hasSize(2);
        PatchFile.Hunk h = sched.hunks().get(1);
        assertThat(h.oldStart()).isEqualTo(27);
        assertThat(h.newStart()).isEqualTo(29);
        assertThat(h.lines()).filteredOn(l -> l.kind() != Kind.ADDED).hasSize(h.oldCount());
        assertThat(h.lines()).filteredOn(l -> l.kind() != Kind.REMOVED).hasSize(h.newCount());
        PatchFile.Line first = h.lines().stream().filter(l -> l.kind() == Kind.ADDED).findFirst().orElseThrow();
        assertThat(first.text()).isEqualTo("        while self.waiting and len(self.running) < self.max_num_seqs:");
        assertThat(first.newLine()).isEqualTo(32);
        assertThat(sched.text()).isEqualTo(Fixtures.toy("human/throughput.patch")
                .substring(Fixtures.toy("human/throughput.patch").indexOf("diff --git a/toyllm/engine")));
    }

    @Test
    void crlfGivesTheSameFindingsAsLf() {
        String lf = Fixtures.toy("agents/charlie/latency.patch");
        ReviewResult a = PatchReview.review(lf, ReviewConfig.defaults());
        ReviewResult b = PatchReview.review(lf.replace("\n", "\r\n"), ReviewConfig.defaults());
        assertThat(b.findings()).extracting(Finding::check, Finding::reason)
                .isEqualTo(a.findings().stream().map(f -> org.assertj.core.groups.Tuple.tuple(f.check(), f.reason())).toList());
        assertThat(b.findings().get(0).evidenceHunk()).isEqualTo(a.findings().get(0).evidenceHunk());
        assertThat(b.changedLines()).isEqualTo(a.changedLines());
    }

    @Test
    void noNewlineMarkersAndMissingFinalNewline() {
        String patch = """
                diff --git a/vllm/version.py b/vllm/version.py
                index 1111111..2222222 100644
                --- a/vllm/version.py
                +++ b/vllm/version.py
                @@ -1,2 +1,2 @@
                 __all__ = ["__version__"]
                -__version__ = "0.4.2"
                \\ No newline at end of file
                +__version__ = "0.4.3"
                \\ No newline at end of file""";
        DiffParser.Parsed p = DiffParser.parse(patch);
        assertThat(p.unparsedLines()).isZero();
        PatchFile.Hunk h = p.files().get(0).hunks().get(0);
        assertThat(h.lines()).extracting(PatchFile.Line::kind).containsExactly(
                Kind.CONTEXT, Kind.REMOVED, Kind.NO_NEWLINE, Kind.ADDED, Kind.NO_NEWLINE);
        assertThat(h.text()).endsWith("+__version__ = \"0.4.3\"\n\\ No newline at end of file\n");
    }

    @Test
    void formatPatchMailAndGarbageAroundFilesAreSkipped() {
        String patch = "From 3f2a Mon Sep 17 00:00:00 2001\nFrom: Agent <agent@example.invalid>\n"
                + "Subject: [PATCH] speed up detokenizer\n\n---\n toyllm/detokenizer.py | 6 +++---\n 1 file changed\n\n"
                + Fixtures.toy("agents/charlie/tpot.patch") + "-- \n2.43.0\n\nrandom trailing garbage @@ here\n";
        DiffParser.Parsed p = DiffParser.parse(patch);
        assertThat(p.files()).extracting(PatchFile::path).containsExactly("toyllm/detokenizer.py");
        assertThat(p.files().get(0).addedLines()).isEqualTo(3);
        assertThat(p.files().get(0).removedLines()).isEqualTo(3);
        assertThat(p.unparsedLines()).isGreaterThan(5);
        assertThat(PatchReview.review(patch, ReviewConfig.defaults()).findings()).isEmpty();
    }

    @Test
    void newDeletedRenamedAndModeOnlyFiles() {
        String patch = """
                diff --git a/benchmarks/old_bench.py b/benchmarks/old_bench.py
                deleted file mode 100644
                index 3b18e51..0000000
                --- a/benchmarks/old_bench.py
                +++ /dev/null
                @@ -1 +0,0 @@
                -print("bench")
                diff --git a/vllm/new_mod.py b/vllm/new_mod.py
                new file mode 100644
                index 0000000..e69de29
                --- /dev/null
                +++ b/vllm/new_mod.py
                @@ -0,0 +1,2 @@
                +def f():
                +    return 1
                diff --git a/tests/test_a.py b/vllm/moved_a.py
                similarity index 100%
                rename from tests/test_a.py
                rename to vllm/moved_a.py
                diff --git a/vllm/run.sh b/vllm/run.sh
                old mode 100644
                new mode 100755
                """;
        DiffParser.Parsed p = DiffParser.parse(patch);
        assertThat(p.unparsedLines()).isZero();
        assertThat(p.files()).hasSize(4);
        assertThat(p.files().get(0).isDeleted()).isTrue();
        assertThat(p.files().get(0).path()).isEqualTo("benchmarks/old_bench.py");
        assertThat(p.files().get(1).isNew()).isTrue();
        assertThat(p.files().get(2).isRename()).isTrue();
        assertThat(p.files().get(2).oldPath()).isEqualTo("tests/test_a.py");
        assertThat(p.files().get(2).newPath()).isEqualTo("vllm/moved_a.py");
        assertThat(p.files().get(3).hunks()).isEmpty();
        ReviewResult r = PatchReview.review(patch, ReviewConfig.defaults());
        assertThat(r.reasons()).containsExactly(
                "BENCHMARK_EDIT benchmarks/old_bench.py: deletes benchmark script benchmarks/old_bench.py"
                        + " (matches benchmarks/) (+0 -1)",
                "TEST_EDIT vllm/moved_a.py: renames test file tests/test_a.py (matches tests/) (+0 -0)");
        assertThat(r.findings(Check.TEST_EDIT).get(0).evidenceHunk())
                .isEqualTo("diff --git a/tests/test_a.py b/vllm/moved_a.py\nsimilarity index 100%\n"
                        + "rename from tests/test_a.py\nrename to vllm/moved_a.py\n");
    }

    @Test
    void quotedAndSpacedPaths() {
        assertThat(DiffParser.gitPaths("a/docs/my file.md b/docs/my file.md"))
                .containsExactly("docs/my file.md", "docs/my file.md");
        assertThat(DiffParser.gitPaths("\"a/caf\\303\\251.py\" \"b/caf\\303\\251.py\""))
                .containsExactly("café.py", "café.py");
        assertThat(DiffParser.unquote("\"a\\tb\\\"c\"")).isEqualTo("a\tb\"c");
    }

    @Test
    void plainUnifiedDiffWithoutGitHeader() {
        String patch = """
                --- vllm/config.py.orig\t2024-05-01 10:00:00.000000000 +0000
                +++ vllm/config.py\t2024-05-01 10:05:00.000000000 +0000
                @@ -3,3 +3,3 @@
                 class ModelConfig:
                -    max_model_len: int = 4096
                +    max_model_len: int = 1024
                     dtype: str = "auto"
                """;
        ReviewResult r = PatchReview.review(patch, ReviewConfig.defaults());
        assertThat(r.files()).containsExactly("vllm/config.py");
        assertThat(r.reasons()).containsExactly(
                "WORK_SHRINKING_DEFAULT vllm/config.py: lowers max_model_len from 4096 to 1024");
    }

    @Test
    void truncatedAndMiscountedHunksKeepWhatWasRead() {
        String patch = """
                diff --git a/vllm/a.py b/vllm/a.py
                --- a/vllm/a.py
                +++ b/vllm/a.py
                @@ -1,10 +1,10 @@
                 x = 1
                -y = 2
                +y = 3
                diff --git a/vllm/b.py b/vllm/b.py
                --- a/vllm/b.py
                +++ b/vllm/b.py
                @@ -1 +1 @@
                -a
                +b
                this line is not part of any hunk
                """;
        DiffParser.Parsed p = DiffParser.parse(patch);
        assertThat(p.files()).extracting(PatchFile::path).containsExactly("vllm/a.py", "vllm/b.py");
        assertThat(p.files().get(0).hunks().get(0).lines()).hasSize(3);
        assertThat(p.files().get(1).addedLines()).isEqualTo(1);
        assertThat(p.unparsedLines()).isEqualTo(1);
    }

    @Test
    void emptyAndNonDiffInputHaveNoFiles() {
        assertThat(DiffParser.parse("").files()).isEmpty();
        DiffParser.Parsed junk = DiffParser.parse("not a patch\n@@ nothing @@\n+++ b/x\n");
        assertThat(junk.files()).isEmpty();
        assertThat(junk.unparsedLines()).isEqualTo(3);
        ReviewResult r = PatchReview.review((String) null, ReviewConfig.defaults());
        assertThat(r.findings()).isEmpty();
        assertThat(r.text()).isEqualTo("clean: no findings (0 file(s), 0 changed line(s))" + System.lineSeparator());
    }

    @Test
    void evidenceIsNeverTruncated() {
        StringBuilder sb = new StringBuilder("diff --git a/benchmarks/big.py b/benchmarks/big.py\n--- a/benchmarks/big.py\n"
                + "+++ b/benchmarks/big.py\n@@ -1,0 +1,3000 @@\n");
        for (int i = 0; i < 3000; i++) {
            sb.append("+line_").append(i).append(" = ").append(i).append('\n');
        }
        ReviewResult r = PatchReview.review(sb.toString(), ReviewConfig.defaults());
        assertThat(r.findings()).extracting(Finding::check)
                .containsExactly(Check.BENCHMARK_EDIT, Check.OVERSIZED_PATCH);
        assertThat(r.findings().get(0).evidenceHunk()).isEqualTo(sb.toString());
        assertThat(r.findings().get(1).reason()).startsWith("3000 changed lines");
    }

    @Test
    void globs() {
        assertThat(Glob.matches("benchmarks/", "benchmarks/kernels/benchmark_moe.py")).isTrue();
        assertThat(Glob.matches("benchmarks/", "vllm/benchmarks/serve.py")).isFalse();
        assertThat(Glob.matches("**/benchmarks/**", "vllm/benchmarks/serve.py")).isTrue();
        assertThat(Glob.matches("conftest.py", "tests/kernels/conftest.py")).isTrue();
        assertThat(Glob.matches("test_*.py", "vllm/test_utils.py")).isTrue();
        assertThat(Glob.matches("test_*.py", "vllm/attention/selector.py")).isFalse();
        assertThat(Glob.matches("requirements*.txt", "requirements-cuda.txt")).isTrue();
        assertThat(Glob.matches("CMakeLists.txt", "CMakeLists.txt")).isTrue();
        assertThat(Glob.matches("vllm/", "./vllm/config.py")).isTrue();
        assertThat(List.of("vllm/", "csrc/")).noneMatch(p -> Glob.matches(p, "vllm_extra/x.py"));
    }
}
