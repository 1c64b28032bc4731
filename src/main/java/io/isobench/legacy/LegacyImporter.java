package io.isobench.legacy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code isobench import legacy}: walks a tree of old ISO-Bench results and stores every run with its source
 * (legacy-import.md). Each file is imported in its own transaction; a file already stored with the same relative
 * path and SHA-256 changes nothing.
 */
public final class LegacyImporter {

    static final String LFS_MAGIC = "version https://git-lfs.github.com/spec/v1";
    /**
     * The largest legacy file read (issue 15 point 6). A file is held whole while it is read (its bytes, its text, its
     * JSON tree, its redacted copy: about 10-20 times its size), so memory stays under 1 GB; the real result files are
     * a few kB to a few MB. Larger files are refused with this limit as the reason, without being read.
     */
    static final long MAX_FILE_BYTES = 32L << 20;

    private final Store store;
    private final String agentOption;
    private final PrintWriter progress;
    private final ImportProgress meter;
    private Map<String, SourceRecord> known = Map.of();
    private final Map<String, TaskRecord> tasksSeen = new HashMap<>();
    private final CommitResolver commits = new CommitResolver(tasksSeen);
    private final ImportBatch batch;

    /** A file being imported: its known path, content hash, source id and agent (null = none). */
    private record SourceFile(String path, String sha, String sourceId, String agent) {
    }

    /**
     * What a result file gave.
     *
     * @param recovery  how a damaged file was read (null = read as is)
     * @param sidecars  the logs beside it, by file name
     */
    private record FileRead(String text, String recovery, Extractor.Extracted extracted, Map<String, String> sidecars) {
    }

    /**
     * Where a run of a file comes from.
     *
     * @param pathCommit the commit its file name shows (null = none)
     * @param fileAgent  the agent of the file (null for sglang trees and unnamed agents)
     * @param recovery   how a damaged file was read (null = read as is)
     */
    private record RecordSource(String path, String pathCommit, String sourceId, String formatId,
                                Extractor.Extracted extracted, String fileAgent, String recovery) {
    }

    /**
     * @param store       where runs go
     * @param agentOption agent for trees whose folder names none ({@code --agent}), or null
     * @param progress    diagnostics (stderr), or null
     */
    public LegacyImporter(Store store, String agentOption, PrintWriter progress) {
        this(store, agentOption, progress, null);
    }

    /**
     * @param meter progress of a long import (files/s, time left), or null for none
     */
    public LegacyImporter(Store store, String agentOption, PrintWriter progress, ImportProgress meter) {
        this.store = store;
        this.agentOption = agentOption == null || agentOption.isBlank() ? null : Arm.normalizeAgent(agentOption);
        this.progress = progress;
        this.meter = meter;
        this.batch = new ImportBatch(store);
    }

    /** Imports every regular file under {@code root}. Throws {@link IsobenchException.BadInput} for a bad root. */
    public ImportSummary importTree(Path root) {
        long t0 = System.nanoTime();
        LegacyTree.Walk walk = LegacyTree.walk(root);
        Path absRoot = walk.root();
        // One read of the sources instead of a query per file (one row per imported file: small even for big stores).
        known = new HashMap<>();
        for (SourceRecord src : store.sources()) {
            known.put(src.path() + "\n" + src.sha256(), src);
        }
        for (TaskRecord t : store.tasks()) {
            tasksSeen.put(t.taskId(), t);
        }
        List<ImportSummary.FileOutcome> outcomes = new ArrayList<>();
        if (meter != null) {
            meter.start(walk.files().size());
        }
        for (Path file : walk.files()) {
            String path = LegacyTree.canonicalPath(absRoot, file);
            String rootPath = absRoot.relativize(file).toString().replace('\\', '/');
            ImportSummary.FileOutcome o;
            try {
                o = importFile(file, path, rootPath, absRoot);
            } catch (IOException | UncheckedIOException e) {
                o = new ImportSummary.FileOutcome(path, LegacyFormat.OTHER.id(), ImportSummary.Outcome.REFUSED,
                        "cannot be read: " + e.getMessage(), 0);
            } catch (OutOfMemoryError e) {
                // one file's refusal, not the end of the import: its half-built records are garbage now
                o = new ImportSummary.FileOutcome(path, LegacyFormat.OTHER.id(), ImportSummary.Outcome.REFUSED,
                        "not enough memory to read this file (" + LegacyTree.megabytes(file) + "); the rest of the tree is"
                                + " imported", 0);
                note("isobench: " + path + ": " + o.reason());
            }
            outcomes.add(o);
            batch.fileDone();
            if (meter != null) {
                meter.fileDone(outcomes.size());
            }
        }
        if (meter != null) {
            meter.finish();
        }
        // runs read with a short commit id before a later file named it in full
        batch.runs.addAll(commits.resolvedAtEnd());
        batch.flush();
        Attempts.Outcome attempts = Attempts.resolve(store);
        if (attempts.supersededAttempts() + attempts.finalAttempts() > 0) {
            note("isobench: progress-log attempts in the store: " + attempts.finalAttempts() + " final, "
                    + attempts.supersededAttempts() + " superseded by a later attempt of the same commit"
                    + " (`isobench runs --all-attempts` lists them)");
        }
        for (LegacyTree.Skipped sk : walk.skipped()) {
            outcomes.add(new ImportSummary.FileOutcome(LegacyTree.canonicalPath(absRoot, sk.path()), LegacyFormat.OTHER.id(),
                    ImportSummary.Outcome.SKIPPED, sk.reason(), 0));
        }
        return new ImportSummary(root.toString(), outcomes, (System.nanoTime() - t0) / 1_000_000);
    }

    /** A file stored before with the same path and content: what it stands as, with the reason stored then. */
    private static ImportSummary.FileOutcome unchanged(String path, SourceRecord existing) {
        ImportSummary.Outcome stood = ImportSummary.Outcome.ofStored(existing.outcome());
        return new ImportSummary.FileOutcome(path, existing.formatId(), ImportSummary.Outcome.UNCHANGED,
                existing.reason() != null ? existing.reason() : "already imported (" + existing.outcome() + ")", 0,
                stood);
    }

    /**
     * Checks an import root and lists its regular files (sorted).
     *
     * @throws IsobenchException.BadInput when it is missing, not a directory, unreadable or holds no file
     */
    public static List<Path> checkRoot(Path root) {
        return LegacyTree.walk(root).files();
    }

    private ImportSummary.FileOutcome importFile(Path file, String path, String rootPath, Path realRoot)
            throws IOException {
        FormatDetector.PathInfo info = FormatDetector.path(path);
        String agent = info.agent() != null ? info.agent() : agentOption;
        if (info.kind() == FormatDetector.FileKind.OTHER || info.kind() == FormatDetector.FileKind.TABLE) {
            return notAResult(file, path, info, agent);
        }
        long size = Files.size(file);
        if (size > MAX_FILE_BYTES) {
            return tooLarge(file, path, info, agent, size);
        }
        byte[] bytes = Files.readAllBytes(file);
        String sha = sha256(bytes);
        SourceRecord existing = known.get(path + "\n" + sha);
        if (existing != null) {
            return unchanged(path, existing);
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        bytes = null; // the text is what is kept from here on
        String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
        SourceFile src = new SourceFile(path, sha, sourceId, agent);
        if (info.agent() != null && agentOption != null && !info.agent().equals(agentOption)) {
            note("isobench: " + path + ": the tree folder names agent '" + info.agent() + "'; --agent "
                    + agentOption + " applies only to trees whose folder names none");
        }
        FormatDetector.Detection byName = FormatDetector.byName(info, LegacyFormat.OTHER);
        if (info.kind() == FormatDetector.FileKind.SIDECAR) {
            return sidecar(file, src, info, text, rootPath);
        }
        if (text.startsWith(LFS_MAGIC)) {
            return refuse(src, byName, text, "LFS pointer, data not present");
        }
        LenientJson.Parsed parsed;
        try {
            parsed = LenientJson.parse(text);
        } catch (LenientJson.Unrecoverable e) {
            return refuse(src, byName, text, e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            return refuse(src, byName, text, "could not be read: " + e);
        }
        FormatDetector.Schema schema = FormatDetector.schema(parsed.root());
        String table = schema == null ? FormatDetector.tableReason(parsed.root()) : null;
        if (table != null) {
            return skip(src, byName.withFormat(LegacyFormat.R13), table);
        }
        if (schema == null) {
            // any JSON file of a tree (a trajectory, a config): its keys are the reason, its content is not copied
            return refuse(src, byName, null, parsed.root().isObject()
                    ? "no known result schema; keys: " + FormatDetector.keys(parsed.root())
                    : "no known result schema: expected a JSON object, found " + FormatDetector.keys(parsed.root()));
        }
        FormatDetector.Detection det = FormatDetector.detect(info, schema);
        if (det.format() == LegacyFormat.R13) {
            return skip(src, det, FormatDetector.derivedReason(parsed.root()));
        }
        if (det.format() == LegacyFormat.JOURNAL) {
            return journal(src, det, parsed, text, rootPath);
        }
        Map<String, String> sidecars = new LinkedHashMap<>();
        if (det.format() == LegacyFormat.R11 || det.format() == LegacyFormat.R12) {
            for (String name : new String[] {"stdout.txt", "stderr.txt"}) {
                Path sc = file.resolveSibling(name);
                if (Files.isRegularFile(sc) && Files.size(sc) <= MAX_FILE_BYTES && LegacyTree.inside(sc, realRoot)) {
                    sidecars.put(name, Files.readString(sc, StandardCharsets.UTF_8));
                }
            }
        }
        Extractor.Extracted ex;
        try {
            ex = Extractor.extract(det, parsed.root(), sidecars);
        } catch (Extractor.WrongShape e) {
            return refuse(src, det, text, e.getMessage());
        } catch (RuntimeException e) {
            note("isobench: " + path + ": " + e);
            return refuse(src, det, text, "could not be read: " + e);
        }
        if (parsed.note() != null) {
            ex.runs().forEach(d -> d.notes.add(parsed.note()));
        }
        return store(src, det, new FileRead(text, parsed.recovery(), ex, sidecars), rootPath);
    }

    /** A Stage A agent-run journal: one agent attempt ({@link Journal}), or refused when it names no commit. */
    private ImportSummary.FileOutcome journal(SourceFile src, FormatDetector.Detection det, LenientJson.Parsed parsed,
                                              String text, String rootPath) {
        Journal.Read read;
        try {
            read = Journal.read(parsed.root(), new Journal.Origin(src.path(), rootPath, src.sourceId()));
        } catch (Extractor.WrongShape e) {
            return refuse(src, det, text, e.getMessage());
        }
        String recovery = parsed.recovery();
        String art = batch.artifact("legacy-source", text);
        TaskMerge.putTask(batch.tasks, read.task(), null, tasksSeen);
        batch.runs.add(commits.resolve(read.run()));
        String agent = read.run().agent();
        batch.sources.add(source(src, det.format().id()).pipeline(Journal.PIPELINE).invocationGroup(src.sourceId())
                .agent(agent).outcome(recovery == null ? "imported" : "recovered", recovery).contentArtifact(art)
                .build());
        return new ImportSummary.FileOutcome(src.path(), det.format().id(), recovery == null
                ? ImportSummary.Outcome.IMPORTED : ImportSummary.Outcome.RECOVERED, recovery, 1);
    }

    /**
     * A file that is not a result by its name (README, notes, a published table): only its head is read (its hash is
     * streamed), whatever its size. A published table is skipped with the command that reads it; an LFS pointer is
     * refused.
     */
    private ImportSummary.FileOutcome notAResult(Path file, String path, FormatDetector.PathInfo info, String agent)
            throws IOException {
        String sha = streamedSha256(file);
        SourceRecord existing = known.get(path + "\n" + sha);
        if (existing != null) {
            return unchanged(path, existing);
        }
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(8192);
        }
        String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
        SourceFile src = new SourceFile(path, sha, sourceId, agent);
        FormatDetector.Detection byName = FormatDetector.byName(info, LegacyFormat.OTHER);
        if (info.kind() == FormatDetector.FileKind.OTHER) {
            return skip(src, byName, "not a result file");
        }
        String text = new String(head, StandardCharsets.UTF_8);
        if (text.startsWith(LFS_MAGIC)) {
            return refuse(src, byName.withFormat(LegacyFormat.EXPORT), text,
                    "LFS pointer, data not present");
        }
        return FormatDetector.publishedTable(path, head)
                ? skip(src, byName.withFormat(LegacyFormat.EXPORT),
                        "export table: use `isobench import hf`")
                : skip(src, byName, "not a result file");
    }

    private static String streamedSha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** A file over {@link #MAX_FILE_BYTES}: refused unread (its hash is streamed, so a re-import knows it). */
    private ImportSummary.FileOutcome tooLarge(Path file, String path, FormatDetector.PathInfo info, String agent,
                                               long size) throws IOException {
        String sha = streamedSha256(file);
        SourceRecord existing = known.get(path + "\n" + sha);
        if (existing != null) {
            return unchanged(path, existing);
        }
        String reason = String.format(Locale.ROOT, "%.1f MB is more than the %d MiB a legacy file may have"
                + " (memory stays bounded); not read — the old system's result files are a few kB to a few MB",
                size / 1e6, MAX_FILE_BYTES >> 20);
        String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
        batch.sources.add(SourceRecord.builder(sourceId).format(LegacyFormat.OTHER.id()).file(path, sha).agent(agent)
                .outcome("refused", reason).build());
        return new ImportSummary.FileOutcome(path, LegacyFormat.OTHER.id(), ImportSummary.Outcome.REFUSED, reason, 0);
    }

    private ImportSummary.FileOutcome sidecar(Path file, SourceFile src, FormatDetector.PathInfo info, String text,
                                              String rootPath) {
        String path = src.path();
        Path json = file.resolveSibling("benchmark_result.json");
        if (Files.isRegularFile(json)) {
            // Read with the result beside it (its runs' evidence); stored here, referenced from that result's runs.
            String id;
            try {
                String sibling = Files.size(json) <= MAX_FILE_BYTES ? Files.readString(json, StandardCharsets.UTF_8) : "";
                id = sibling.contains("\"baseline_ms\"") || sibling.contains("\"baseline_output\"")
                        ? LegacyFormat.R11.id() : LegacyFormat.R12.id();
            } catch (IOException | UncheckedIOException e) {
                id = LegacyFormat.R12.id();
            }
            String art = batch.artifact("legacy-log", text);
            batch.sources.add(source(src, id).outcome("imported", "log beside " + json.getFileName())
                    .contentArtifact(art).build());
            return new ImportSummary.FileOutcome(path, id, ImportSummary.Outcome.IMPORTED,
                    "log beside benchmark_result.json", 0);
        }
        boolean micro = text.contains("omniperf_test_") || text.contains("\"impl_tag\"");
        FormatDetector.Detection det = FormatDetector.byName(info, micro ? LegacyFormat.R11 : LegacyFormat.R12);
        Extractor.Extracted ex = RunnerResult.sidecarOnly(det, text, micro);
        return store(src, det, new FileRead(text, null, ex, Map.of()), rootPath);
    }

    /** The source row of {@code src} read as format {@code formatId}: id, path, hash and agent set. */
    private static SourceRecord.Builder source(SourceFile src, String formatId) {
        return SourceRecord.builder(src.sourceId()).format(formatId).file(src.path(), src.sha()).agent(src.agent());
    }

    private ImportSummary.FileOutcome skip(SourceFile src, FormatDetector.Detection det, String reason) {
        batch.sources.add(source(src, det.format().id()).outcome("skipped", reason).build());
        return new ImportSummary.FileOutcome(src.path(), det.format().id(), ImportSummary.Outcome.SKIPPED, reason, 0);
    }

    /** A refusal; {@code text} (null: not kept) is stored whole so the refused file can be read from the store. */
    private ImportSummary.FileOutcome refuse(SourceFile src, FormatDetector.Detection det, String text,
                                             String reason) {
        String art = text == null ? null : batch.artifact("legacy-source", text);
        batch.sources.add(source(src, det.format().id()).outcome("refused", reason).contentArtifact(art).build());
        return new ImportSummary.FileOutcome(src.path(), det.format().id(), ImportSummary.Outcome.REFUSED, reason, 0);
    }

    private ImportSummary.FileOutcome store(SourceFile src, FormatDetector.Detection det, FileRead read,
                                            String rootPath) {
        String path = src.path();
        String recovery = read.recovery();
        Extractor.Extracted ex = read.extracted();
        boolean recovered = recovery != null;
        String formatId = det.format().id();
        String fileAgent = det.engine().equals("sglang") ? null : src.agent();
        String outcome = recovered ? "recovered" : "imported";
        // Everything is built before the transaction: a file that cannot be turned into records is refused with
        // the reason; a store that cannot write stops the import (it is not the file's fault).
        Map<String, Store.ArtifactInput> artifacts = new LinkedHashMap<>();
        List<RunRecord> records = new ArrayList<>();
        String contentArt;
        try {
            contentArt = ImportBatch.pending(artifacts, "legacy-source", read.text());
            ObjectNode sidecarArts = LenientJson.MAPPER.createObjectNode();
            read.sidecars().forEach((name, log) -> sidecarArts.put(name,
                    ImportBatch.pending(artifacts, "legacy-log", log)));
            for (RunDraft d : ex.runs()) {
                d.extra.put("root_path", rootPath);
                records.add(toRecord(d, artifacts, new RecordSource(path, det.commit(), src.sourceId(), formatId, ex,
                        fileAgent, recovery), sidecarArts));
            }
        } catch (RuntimeException e) {
            note("isobench: " + path + ": " + e);
            return refuse(src, det, read.text(), "could not be imported: " + e);
        }
        batch.addArtifacts(artifacts);
        if (ex.task() != null) {
            TaskMerge.putTask(batch.tasks, ex.task(), det.commit(), tasksSeen);
        }
        records.forEach(r -> batch.runs.add(commits.resolve(r)));
        batch.sources.add(source(src, formatId).pipeline(ex.pipeline()).invocationGroup(src.sourceId())
                .agent(fileAgent).outcome(outcome, recovery).contentArtifact(contentArt).build());
        int count = records.size();
        if (recovered) {
            note("isobench: " + path + ": " + recovery);
        }
        return new ImportSummary.FileOutcome(path, formatId,
                recovered ? ImportSummary.Outcome.RECOVERED : ImportSummary.Outcome.IMPORTED, recovery, count);
    }

    private RunRecord toRecord(RunDraft d, Map<String, Store.ArtifactInput> artifacts, RecordSource source,
                               ObjectNode sidecarArts) {
        String path = source.path();
        String pathCommit = source.pathCommit();
        String sourceId = source.sourceId();
        String formatId = source.formatId();
        Extractor.Extracted ex = source.extracted();
        String fileAgent = source.fileAgent();
        String recovery = source.recovery();
        String agent = d.agentOverride != null ? d.agentOverride : fileAgent;
        Arm arm = switch (d.arm) {
            case "baseline" -> Arm.BASELINE;
            case "human" -> Arm.HUMAN;
            case FailedArm.ATTEMPT -> Arm.other(FailedArm.ATTEMPT); // a failure of the attempt, charged to no arm
            default -> new Arm(Arm.Kind.AGENT, agent == null ? "unknown" : agent); // as named: putRun normalises
        };
        String commit = d.commit == null ? pathCommit : d.commit.strip().toLowerCase(Locale.ROOT);
        if (pathCommit != null && commit != null && !commit.startsWith(pathCommit) && !pathCommit.startsWith(commit)) {
            // The file name is what the old pipelines keyed on; keep the content's id as evidence.
            d.notes.add("commit in the file (" + commit + ") differs from the file name (" + pathCommit + ")");
            d.extra.put("file_commit", commit);
            commit = pathCommit;
        }
        String commitShort = commit == null ? null : commit.substring(0, Math.min(8, commit.length()));
        String runId = "legacy-" + sha256((path + "#" + d.index + "#" + d.arm).getBytes(StandardCharsets.UTF_8))
                .substring(0, 32);
        String logArt = d.raw == null || d.raw.isEmpty() ? null
                : ImportBatch.pending(artifacts, "legacy-raw", d.raw);
        RunRecord.FailureInfo failure = null;
        if (d.status == RunRecord.RunStatus.FAILED) {
            failure = Failures.classify(d);
            String whole = Failures.evidenceText(d);
            if (whole != null) {
                String ev = ImportBatch.pending(artifacts, "legacy-evidence", whole);
                d.extra.put("evidence_artifact", ev);
                if (logArt == null) {
                    logArt = ev;
                }
            } else if (logArt != null) {
                d.extra.put("evidence_artifact", logArt);
            }
        }
        if (d.notRunReason != null) {
            String why = Redactor.redact(d.notRunReason); // it quotes the source's error
            d.extra.put("not_run_reason", why);
            d.notes.add(why);
        }
        ObjectNode extra = d.extra;
        extra.put("format", formatId);
        extra.put("path", path);
        extra.put("invocation_group", sourceId);
        if (recovery != null) {
            extra.put("recovered", true);
            extra.put("recovery", recovery);
        }
        ObjectNode byMode = extra.putObject("primary_by_mode");
        for (Map.Entry<Mode, RunDraft.Value> e : d.byMode.entrySet()) {
            ObjectNode v = byMode.putObject(e.getKey().label());
            v.put("value", e.getValue().found().text());
            v.put("origin", e.getValue().origin());
        }
        if (d.primary != null) {
            extra.put("primary_text", d.primary.found().text());
        }
        if (d.outputTokS != null) {
            extra.put("output_tok_s", d.outputTokS.text());
        }
        extra.put("serving_block", d.servingBlock);
        if (!sidecarArts.isEmpty()) {
            extra.set("sidecar_artifacts", sidecarArts);
        }
        String workload = null;
        if (d.servingBlock && !d.workload.isEmpty()) {
            ObjectNode w = LenientJson.MAPPER.createObjectNode();
            d.workload.forEach(w::put);
            w.put("source", "raw serving block");
            workload = w.toString();
        }
        List<Metric> metrics = new ArrayList<>();
        for (Map.Entry<String, Double> m : d.metrics.entrySet()) {
            MetricDictionary.Definition def = MetricDictionary.lookup(m.getKey());
            if (def != null && Double.isFinite(m.getValue())) {
                metrics.add(new Metric(m.getKey(), m.getValue(), def.unit(), def.better()));
            }
        }
        List<String> notes = new ArrayList<>();
        if (recovery != null) {
            notes.add("recovered file: " + recovery + "; not used as a 3-way source");
        }
        notes.addAll(d.notes);
        Mode mode = d.mode;
        return RunRecord.builder(runId)
                .kind(d.kind)
                .commit(commit, commitShort)
                .agent(agent)
                .arm(arm)
                .status(d.status)
                .failure(failure)
                .mode(mode)
                .model(d.model)
                .pipelineLabel(ex.pipeline())
                .source(sourceId)
                .primary(mode == null ? null : MetricDictionary.primaryMetric(mode), d.primary == null ? null : d.primary.found().value().doubleValue(), d.primary == null ? null : d.primary.origin())
                .workload(workload)
                .startedAt(d.startedAt)
                .durationMs(d.durationMs)
                .engineVersion(d.engineVersion)
                .envRef(d.envRef)
                .logArtifact(logArt)
                .notes(notes.isEmpty() ? null : String.join("; ", notes))
                .details(RunDetails.of(extra))
                .metrics(metrics)
                .build();
    }

    private void note(String line) {
        if (progress != null) {
            if (meter != null) {
                meter.clearLine();
            }
            progress.println(line);
            progress.flush();
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
