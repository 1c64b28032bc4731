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
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    private static final Pattern GPU_COUNT = Pattern.compile(":(\\d+)\\s*$");

    private final Store store;
    private final String agentOption;
    private final PrintWriter progress;
    private Map<String, SourceRecord> known = Map.of();
    private final Map<String, TaskRecord> tasksSeen = new java.util.HashMap<>();
    private final Batch batch = new Batch();

    /** Files flushed together in one transaction, at most this many (a file is never split across two). */
    private static final int BATCH_FILES = 256;
    /** … or about this many artifact bytes (whole logs are kept in memory until their batch is stored). */
    private static final long BATCH_BYTES = 32L << 20;

    /**
     * The writes of files read but not stored yet. DuckDB spends milliseconds per statement, so a file per
     * transaction (about ten statements each) dominated an import; a batch is a few multi-row statements. Each file
     * is all in one batch, and a batch is one transaction: a file is stored whole or not at all.
     */
    private final class Batch {
        final Map<String, Store.ArtifactInput> artifacts = new java.util.LinkedHashMap<>();
        final List<RunRecord> runs = new ArrayList<>();
        final Map<String, TaskRecord> tasks = new java.util.LinkedHashMap<>();
        final List<SourceRecord> sources = new ArrayList<>();
        long bytes;

        /** Queues an artifact (redacted) and returns the sha256 the store will give it. */
        String artifact(String kind, String text) {
            Map<String, Store.ArtifactInput> one = new java.util.LinkedHashMap<>();
            String sha = pending(one, kind, text);
            addArtifacts(one);
            return sha;
        }

        /** Queues a file's artifacts (by sha256, as {@link #pending} made them). */
        void addArtifacts(Map<String, Store.ArtifactInput> fileArtifacts) {
            fileArtifacts.forEach((sha, a) -> {
                if (artifacts.putIfAbsent(sha, a) == null) {
                    bytes += a.bytes().length;
                }
            });
        }

        void fileDone() {
            if (sources.size() >= BATCH_FILES || bytes >= BATCH_BYTES) {
                flush();
            }
        }

        void flush() {
            if (sources.isEmpty() && runs.isEmpty() && artifacts.isEmpty() && tasks.isEmpty()) {
                return;
            }
            store.inTransaction(tx -> {
                tx.putArtifacts(List.copyOf(artifacts.values()));
                tx.putRuns(runs);
                tx.putTasks(List.copyOf(tasks.values()));
                tx.putSources(sources);
                return null;
            });
            artifacts.clear();
            runs.clear();
            tasks.clear();
            sources.clear();
            bytes = 0;
        }
    }

    /**
     * @param store       where runs go
     * @param agentOption agent for trees whose folder names none ({@code --agent}), or null
     * @param progress    diagnostics (stderr), or null
     */
    public LegacyImporter(Store store, String agentOption, PrintWriter progress) {
        this.store = store;
        this.agentOption = agentOption == null || agentOption.isBlank() ? null : Arm.normalizeAgent(agentOption);
        this.progress = progress;
    }

    /** Imports every regular file under {@code root}. Throws {@link IsobenchException.BadInput} for a bad root. */
    public ImportSummary importTree(Path root) {
        long t0 = System.nanoTime();
        Walk walk = walk(root);
        Path absRoot = walk.root();
        // One read of the sources instead of a query per file (one row per imported file: small even for big stores).
        known = new java.util.HashMap<>();
        for (SourceRecord src : store.sources()) {
            known.put(src.path() + "\n" + src.sha256(), src);
        }
        for (TaskRecord t : store.tasks()) {
            tasksSeen.put(t.taskId(), t);
        }
        List<ImportSummary.FileOutcome> outcomes = new ArrayList<>();
        for (Path file : walk.files()) {
            String path = canonicalPath(absRoot, file);
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
                        "not enough memory to read this file (" + megabytes(file) + "); the rest of the tree is"
                                + " imported", 0);
                note("isobench: " + path + ": " + o.reason());
            }
            outcomes.add(o);
            batch.fileDone();
        }
        batch.flush();
        for (Skipped sk : walk.skipped()) {
            outcomes.add(new ImportSummary.FileOutcome(canonicalPath(absRoot, sk.path()), LegacyFormat.OTHER.id(),
                    ImportSummary.Outcome.SKIPPED, sk.reason(), 0));
        }
        return new ImportSummary(root.toString(), outcomes, (System.nanoTime() - t0) / 1_000_000);
    }

    /** An entry of the tree that is not a file to read (a link to a folder, a FIFO, a dangling link…), and why. */
    record Skipped(Path path, String reason) {
    }

    /**
     * What a walk found: regular files to read (sorted), and every other entry with the reason it is skipped.
     *
     * @param root the root, symbolic links resolved (a linked root is followed)
     */
    record Walk(Path root, List<Path> files, List<Skipped> skipped) {
    }

    /**
     * Walks the tree under {@code root} without following links below it (a linked folder could loop or leave the
     * tree): a link to a regular file inside the tree is read like a file; a link to a file outside it, a link to a
     * folder, a dangling link, a link to a device and any FIFO, socket or device is listed as skipped with its reason.
     * The root itself may be a link.
     *
     * @throws IsobenchException.BadInput when it is missing, not a directory, unreadable or empty
     */
    static Walk walk(Path root) {
        if (!Files.exists(root)) {
            throw new IsobenchException.BadInput("import root '" + root + "' does not exist (give a results tree"
                    + " or a folder above it)");
        }
        if (!Files.isDirectory(root)) {
            throw new IsobenchException.BadInput("import root '" + root + "' is not a directory (give a results tree"
                    + " or a folder above it)");
        }
        Path real;
        try {
            real = root.toRealPath();
        } catch (IOException e) {
            throw new IsobenchException.BadInput("import root '" + root + "' cannot be read: " + e.getMessage(), e);
        }
        List<Path> files = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        try {
            Files.walkFileTree(real, java.util.EnumSet.noneOf(java.nio.file.FileVisitOption.class), Integer.MAX_VALUE,
                    new java.nio.file.SimpleFileVisitor<>() {
                        @Override
                        public java.nio.file.FileVisitResult visitFile(Path f,
                                java.nio.file.attribute.BasicFileAttributes a) {
                            if (a.isRegularFile()) {
                                files.add(f);
                            } else if (a.isSymbolicLink()) {
                                String why = linkReason(f, real);
                                if (why == null) {
                                    files.add(f);
                                } else {
                                    skipped.add(new Skipped(f, why));
                                }
                            } else if (!a.isDirectory()) {
                                skipped.add(new Skipped(f, specialReason(f) + ": not a regular file, not read"));
                            }
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }

                        @Override
                        public java.nio.file.FileVisitResult visitFileFailed(Path f, IOException e) {
                            skipped.add(new Skipped(f, "cannot be read: " + e.getMessage()));
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException | UncheckedIOException e) {
            throw new IsobenchException.BadInput("import root '" + root + "' cannot be read: " + e.getMessage(), e);
        }
        if (files.isEmpty() && skipped.isEmpty()) {
            throw new IsobenchException.BadInput("import root '" + root + "' is empty (no files to import)");
        }
        files.sort(null);
        skipped.sort(java.util.Comparator.comparing(Skipped::path));
        return new Walk(real, List.copyOf(files), List.copyOf(skipped));
    }

    /**
     * Null when a symbolic link leads to a regular file inside the tree (read it); else why it is skipped. A legacy
     * tree comes from elsewhere: a link out of it could bring any file of this machine into the store.
     */
    private static String linkReason(Path link, Path realRoot) {
        String target;
        try {
            target = Files.readSymbolicLink(link).toString();
        } catch (IOException | UnsupportedOperationException e) {
            target = "?";
        }
        if (!Files.exists(link)) {
            return "dangling symbolic link (to " + target + ", which does not exist): not read";
        }
        if (Files.isDirectory(link)) {
            return "symbolic link to a folder (" + target + "): not followed (it could loop or lead out of the tree)";
        }
        if (Files.isRegularFile(link)) {
            return inside(link, realRoot) ? null : "symbolic link to a file outside the tree (" + target + "): not read"
                    + " (the tree's files only)";
        }
        return "symbolic link to a " + specialReason(link) + " (" + target + "): not read";
    }

    /** Whether {@code file}'s real path (links followed) is under {@code realRoot}. */
    private static boolean inside(Path file, Path realRoot) {
        try {
            return file.toRealPath().startsWith(realRoot);
        } catch (IOException e) {
            return false;
        }
    }

    /** FIFO, socket, character device, block device, or special file. */
    private static String specialReason(Path p) {
        try {
            Object mode = Files.getAttribute(p, "unix:mode");
            if (mode instanceof Integer m) {
                return switch (m & 0170000) {
                    case 0010000 -> "FIFO (named pipe)";
                    case 0140000 -> "socket";
                    case 0020000 -> "character device";
                    case 0060000 -> "block device";
                    default -> "special file";
                };
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // not a unix file system: say what we know
        }
        return "special file";
    }

    private static String megabytes(Path file) {
        try {
            return String.format(java.util.Locale.ROOT, "%.1f MB", Files.size(file) / 1e6);
        } catch (IOException e) {
            return "size unknown";
        }
    }

    /**
     * Checks an import root and lists its regular files (sorted).
     *
     * @throws IsobenchException.BadInput when it is missing, not a directory, unreadable or holds no file
     */
    public static List<Path> checkRoot(Path root) {
        return walk(root).files();
    }

    /**
     * The path a file is known by: from {@code archive/results/} when it lives there, else from the month folder or
     * the {@code omniperf_results*} folder of its tree, else relative to the root. The same file therefore keeps
     * its identity whether the root is the tree itself or any folder above it.
     */
    static String canonicalPath(Path absRoot, Path absFile) {
        List<String> segs = new ArrayList<>();
        for (Path p : absFile) {
            segs.add(p.toString());
        }
        int start = -1;
        for (int i = 0; i + 1 < segs.size(); i++) {
            if (segs.get(i).equals("archive") && segs.get(i + 1).equals("results")) {
                start = i;
            }
        }
        if (start < 0) {
            for (int i = 0; i < segs.size() - 1; i++) {
                if (segs.get(i).startsWith("omniperf_results")) {
                    start = i > 0 && segs.get(i - 1).matches("\\d{4}-\\d{2}") ? i - 1 : i;
                    break;
                }
            }
        }
        if (start < 0) {
            return absRoot.relativize(absFile).toString().replace('\\', '/');
        }
        return String.join("/", segs.subList(start, segs.size()));
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
            return new ImportSummary.FileOutcome(path, existing.formatId(), ImportSummary.Outcome.UNCHANGED,
                    "already imported (" + existing.outcome() + ")", 0);
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        bytes = null; // the text is what is kept from here on
        String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
        if (info.agent() != null && agentOption != null && !info.agent().equals(agentOption)) {
            note("isobench: " + path + ": the tree folder names agent '" + info.agent() + "'; --agent "
                    + agentOption + " applies only to trees whose folder names none");
        }
        FormatDetector.Detection byName = FormatDetector.byName(info, LegacyFormat.OTHER);
        if (info.kind() == FormatDetector.FileKind.SIDECAR) {
            return sidecar(file, path, sha, sourceId, info, agent, text, rootPath);
        }
        if (text.startsWith(LFS_MAGIC)) {
            return refuse(path, sha, sourceId, byName, agent, text, "LFS pointer, data not present");
        }
        LenientJson.Parsed parsed;
        try {
            parsed = LenientJson.parse(text);
        } catch (LenientJson.Unrecoverable e) {
            return refuse(path, sha, sourceId, byName, agent, text, e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            return refuse(path, sha, sourceId, byName, agent, text, "could not be read: " + e);
        }
        FormatDetector.Schema schema = FormatDetector.schema(parsed.root());
        if (schema == null) {
            return refuse(path, sha, sourceId, byName, agent, text, parsed.root().isObject()
                    ? "no known result schema; keys: " + FormatDetector.keys(parsed.root())
                    : "no known result schema: expected a JSON object, found " + FormatDetector.keys(parsed.root()));
        }
        FormatDetector.Detection det = FormatDetector.detect(info, schema);
        if (det.format() == LegacyFormat.R13) {
            return skip(path, sha, sourceId, det, agent, "aggregate report (derived data)");
        }
        Map<String, String> sidecars = new java.util.LinkedHashMap<>();
        if (det.format() == LegacyFormat.R11 || det.format() == LegacyFormat.R12) {
            for (String name : new String[] {"stdout.txt", "stderr.txt"}) {
                Path sc = file.resolveSibling(name);
                if (Files.isRegularFile(sc) && Files.size(sc) <= MAX_FILE_BYTES && inside(sc, realRoot)) {
                    sidecars.put(name, Files.readString(sc, StandardCharsets.UTF_8));
                }
            }
        }
        Extractor.Extracted ex;
        try {
            ex = Extractor.extract(det, parsed.root(), sidecars);
        } catch (Extractor.WrongShape e) {
            return refuse(path, sha, sourceId, det, agent, text, e.getMessage());
        } catch (RuntimeException e) {
            note("isobench: " + path + ": " + e);
            return refuse(path, sha, sourceId, det, agent, text, "could not be read: " + e);
        }
        return store(path, sha, sourceId, det, agent, text, parsed.recovery(), ex, sidecars, rootPath);
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
            return new ImportSummary.FileOutcome(path, existing.formatId(), ImportSummary.Outcome.UNCHANGED,
                    "already imported (" + existing.outcome() + ")", 0);
        }
        byte[] head;
        try (java.io.InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(8192);
        }
        String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
        FormatDetector.Detection byName = FormatDetector.byName(info, LegacyFormat.OTHER);
        if (info.kind() == FormatDetector.FileKind.OTHER) {
            return skip(path, sha, sourceId, byName, agent, "not a result file");
        }
        String text = new String(head, StandardCharsets.UTF_8);
        if (text.startsWith(LFS_MAGIC)) {
            return refuse(path, sha, sourceId, byName.withFormat(LegacyFormat.EXPORT), agent, text,
                    "LFS pointer, data not present");
        }
        return FormatDetector.publishedTable(path, head)
                ? skip(path, sha, sourceId, byName.withFormat(LegacyFormat.EXPORT), agent,
                        "export table: use `isobench import hf`")
                : skip(path, sha, sourceId, byName, agent, "not a result file");
    }

    private static String streamedSha256(Path file) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(file)) {
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
            return new ImportSummary.FileOutcome(path, existing.formatId(), ImportSummary.Outcome.UNCHANGED,
                    "already imported (" + existing.outcome() + ")", 0);
        }
        String reason = String.format(java.util.Locale.ROOT, "%.1f MB is more than the %d MiB a legacy file may have"
                + " (memory stays bounded); not read — the old system's result files are a few kB to a few MB",
                size / 1e6, MAX_FILE_BYTES >> 20);
        String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
        batch.sources.add(new SourceRecord(sourceId, LegacyFormat.OTHER.id(), path, sha, null, null, agent, "refused",
                reason, null));
        return new ImportSummary.FileOutcome(path, LegacyFormat.OTHER.id(), ImportSummary.Outcome.REFUSED, reason, 0);
    }

    private ImportSummary.FileOutcome sidecar(Path file, String path, String sha, String sourceId,
                                              FormatDetector.PathInfo info, String agent, String text,
                                              String rootPath) {
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
            batch.sources.add(new SourceRecord(sourceId, id, path, sha, null, null, agent, "imported",
                    "log beside " + json.getFileName(), art));
            return new ImportSummary.FileOutcome(path, id, ImportSummary.Outcome.IMPORTED,
                    "log beside benchmark_result.json", 0);
        }
        boolean micro = text.contains("omniperf_test_") || text.contains("\"impl_tag\"");
        FormatDetector.Detection det = FormatDetector.byName(info, micro ? LegacyFormat.R11 : LegacyFormat.R12);
        Extractor.Extracted ex = Extractor.sidecarOnly(det, text, micro);
        return store(path, sha, sourceId, det, agent, text, null, ex, Map.of(), rootPath);
    }

    private ImportSummary.FileOutcome skip(String path, String sha, String sourceId, FormatDetector.Detection det,
                                           String agent, String reason) {
        batch.sources.add(new SourceRecord(sourceId, det.format().id(), path, sha, null, null, agent, "skipped", reason,
                null));
        return new ImportSummary.FileOutcome(path, det.format().id(), ImportSummary.Outcome.SKIPPED, reason, 0);
    }

    private ImportSummary.FileOutcome refuse(String path, String sha, String sourceId, FormatDetector.Detection det,
                                             String agent, String text, String reason) {
        String art = batch.artifact("legacy-source", text);
        batch.sources.add(new SourceRecord(sourceId, det.format().id(), path, sha, null, null, agent, "refused", reason,
                art));
        return new ImportSummary.FileOutcome(path, det.format().id(), ImportSummary.Outcome.REFUSED, reason, 0);
    }

    private ImportSummary.FileOutcome store(String path, String sha, String sourceId, FormatDetector.Detection det,
                                            String agent, String text, String recovery, Extractor.Extracted ex,
                                            Map<String, String> sidecars, String rootPath) {
        boolean recovered = recovery != null;
        String formatId = det.format().id();
        String fileAgent = det.engine().equals("sglang") ? null : agent;
        String outcome = recovered ? "recovered" : "imported";
        // Everything is built before the transaction: a file that cannot be turned into records is refused with
        // the reason; a store that cannot write stops the import (it is not the file's fault).
        Map<String, Store.ArtifactInput> artifacts = new java.util.LinkedHashMap<>();
        List<RunRecord> records = new ArrayList<>();
        String contentArt;
        try {
            contentArt = pending(artifacts, "legacy-source", text);
            ObjectNode sidecarArts = LenientJson.MAPPER.createObjectNode();
            sidecars.forEach((name, log) -> sidecarArts.put(name, pending(artifacts, "legacy-log", log)));
            for (RunDraft d : ex.runs()) {
                d.extra.put("root_path", rootPath);
                records.add(toRecord(d, artifacts, path, det.commit(), sourceId, formatId, ex, fileAgent, recovery,
                        sidecarArts));
            }
        } catch (RuntimeException e) {
            note("isobench: " + path + ": " + e);
            return refuse(path, sha, sourceId, det, agent, text, "could not be imported: " + e);
        }
        batch.addArtifacts(artifacts);
        batch.runs.addAll(records);
        if (ex.task() != null) {
            putTask(batch.tasks, ex.task(), det.commit(), tasksSeen);
        }
        batch.sources.add(new SourceRecord(sourceId, formatId, path, sha, ex.pipeline(), sourceId, fileAgent,
                outcome, recovery, contentArt));
        int count = records.size();
        if (recovered) {
            note("isobench: " + path + ": " + recovery);
        }
        return new ImportSummary.FileOutcome(path, formatId,
                recovered ? ImportSummary.Outcome.RECOVERED : ImportSummary.Outcome.IMPORTED, recovery, count);
    }

    /** Redacts, queues and returns the sha256 the store will give the artifact (content-addressed). */
    private static String pending(Map<String, Store.ArtifactInput> artifacts, String kind, String text) {
        byte[] bytes = Redactor.redact(text).getBytes(StandardCharsets.UTF_8);
        String sha = sha256(bytes);
        artifacts.putIfAbsent(sha, new Store.ArtifactInput(kind, bytes));
        return sha;
    }

    private RunRecord toRecord(RunDraft d, Map<String, Store.ArtifactInput> artifacts, String path, String pathCommit, String sourceId, String formatId,
                               Extractor.Extracted ex, String fileAgent, String recovery, ObjectNode sidecarArts) {
        String agent = d.agentOverride != null ? d.agentOverride : fileAgent;
        String armLabel = switch (d.arm) {
            case "baseline" -> "baseline";
            case "human" -> "human";
            default -> "agent:" + (agent == null ? "unknown" : agent);
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
                : pending(artifacts, "legacy-raw", d.raw);
        RunRecord.FailureInfo failure = null;
        if (d.status == RunRecord.RunStatus.FAILED) {
            failure = Failures.classify(d);
            String whole = Failures.evidenceText(d);
            if (whole != null) {
                String ev = pending(artifacts, "legacy-evidence", whole);
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
                .arm(armLabel)
                .status(d.status)
                .failure(failure)
                .mode(mode == null ? null : mode.label())
                .model(d.model)
                .pipeline(ex.pipeline())
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

    private static void putTask(Map<String, TaskRecord> toStore, Extractor.TaskInfo t, String pathCommit,
                                Map<String, TaskRecord> seen) {
        String commit = t.commit() != null ? t.commit().toLowerCase(Locale.ROOT) : pathCommit;
        if (commit == null) {
            return;
        }
        String id = commit.substring(0, Math.min(8, commit.length()));
        TaskRecord o = seen.get(id); // every stored task was read when the import began
        Integer gpus = null;
        String gpuConfig = pick(t.gpuConfig(), o == null ? null : o.gpuConfig());
        if (gpuConfig != null) {
            Matcher m = GPU_COUNT.matcher(gpuConfig);
            if (m.find()) {
                gpus = Integer.parseInt(m.group(1));
            }
        }
        String full = longer(commit, o == null ? null : o.commit());
        TaskRecord merged = new TaskRecord(id, pick(o == null ? null : o.repo(), t.repo()), full,
                pick(o == null ? null : o.parentCommit(), t.parent()),
                longer(t.subject(), o == null ? null : o.subject()),
                pick(o == null ? null : o.perfCommand(), t.perfCommand()),
                pick(o == null ? null : o.model(), t.model()), gpuConfig,
                gpus != null ? gpus : o == null ? null : o.gpuCount());
        if (!merged.equals(o)) {
            toStore.put(id, merged);
        }
        seen.put(id, merged);
    }

    private static String pick(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }

    private static String longer(String a, String b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return b.length() > a.length() ? b : a;
    }

    private void note(String line) {
        if (progress != null) {
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
