package io.isobench.loadgen;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a {@link ServerMetricsScraper}'s scrapes go, in memory bounded whatever the server sends and however long the
 * run (issue 27): each scrape is folded into the running summaries ({@link ServerMetricsSummary.Digest}: a few dozen
 * numbers) and streamed as one JSON line to a temporary file, until that file would pass {@code capBytes}; later
 * scrapes still count in the summaries and the bookkeeping, are left out of the raw series, and the series says how
 * many ({@code scrapes_left_out}). Declared types are kept up to {@value #MAX_TYPES} families. Nothing here throws on
 * what the server sent; a file that cannot be written leaves the raw series empty, with the reason.
 * Thread-safe: the scraper's thread and the measured-phase mark feed it concurrently.
 */
final class SeriesRecorder {

    /** The raw series' cap, in bytes of its JSON lines: a few full vLLM scrapes of a long run, 8 MiB ones included. */
    static final long MAX_SERIES_BYTES = 32L << 20;
    /** Families whose declared type is kept in the series' {@code types}. */
    static final int MAX_TYPES = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String endpoint;
    private final double intervalMs;
    private final long capBytes;
    private final Map<String, String> types = new LinkedHashMap<>();
    /** Where each stored scrape's line is in the file (the mark's scrape may end after a later one). */
    private final List<Line> index = new ArrayList<>();
    private final ServerMetricNames names;
    private final ServerMetricsSummary.Digest all;
    private ServerMetricsSummary.Digest measured;
    private double measuredFromMs = Double.NaN;
    private Path file;
    private OutputStream out;
    private String fileError;
    private long written;
    private long typesLeftOut;
    private long scrapes;
    private long ok;
    private long failures;
    private long badLines;
    private long leftOut;
    private String firstError;
    private String firstBad;

    SeriesRecorder(String endpoint, double intervalMs, long capBytes, ServerMetricNames names) {
        this.names = names;
        this.all = new ServerMetricsSummary.Digest(names);
        this.endpoint = endpoint;
        this.intervalMs = intervalMs;
        this.capBytes = capBytes;
        try {
            file = Files.createTempFile("isobench-server-metrics-", ".jsonl");
            out = Files.newOutputStream(file);
        } catch (IOException e) {
            fileError = "could not write the series to a temporary file: " + e.getMessage();
        }
    }

    /** The measured phase starts at {@code tMs}: from now on the summaries count the scrapes sent at or after it. */
    synchronized void mark(double tMs) {
        measuredFromMs = tMs;
        measured = new ServerMetricsSummary.Digest(names);
    }

    /** Scrapes recorded so far. */
    synchronized long scrapes() {
        return scrapes;
    }

    /** Folds one scrape into the summaries and appends it to the raw series while under the cap. */
    synchronized void add(ServerMetricsScraper.Scrape s) {
        scrapes++;
        if (s.exposition() == null) {
            failures++;
            firstError = firstError == null ? s.error() : firstError;
        } else {
            PromText.Exposition e = s.exposition();
            ok++;
            badLines += e.badLines();
            if (firstBad == null && !e.errors().isEmpty()) {
                firstBad = e.errors().get(0);
            }
            all.add(s.tMs(), e);
            if (measured != null && s.tMs() >= measuredFromMs) {
                measured.add(s.tMs(), e);
            }
            e.types().forEach((family, type) -> {
                if (types.containsKey(family) || types.size() < MAX_TYPES) {
                    types.put(family, type);
                } else {
                    typesLeftOut++;
                }
            });
        }
        append(s);
    }

    private void append(ServerMetricsScraper.Scrape s) {
        if (out == null) {
            leftOut++;
            return;
        }
        try {
            byte[] line = line(s);
            if (written + line.length > capBytes) {
                leftOut++;
                return;
            }
            out.write(line);
            index.add(new Line(s.tMs(), written, line.length));
            written += line.length;
        } catch (IOException e) {
            fileError = "could not write the series to " + file + ": " + e.getMessage();
            closeQuietly();
            leftOut++;
        }
    }

    /**
     * The series: the summaries, the counts and the raw series (format {@code isobench-server-metrics/1}, read back
     * from the file, which is then deleted). Call once.
     */
    synchronized ServerMetricsScraper.Series finish() {
        closeQuietly();
        ServerMetricsSummary.Digest d = measured != null ? measured : all;
        List<Metric> summaries = ServerMetricsSummary.summarize(d, failures, badLines);
        String json;
        try {
            json = document(file != null);
        } catch (IOException e) {
            fileError = "could not read the series back from " + file + ": " + e.getMessage();
            leftOut = scrapes;
            json = null;
        } finally {
            deleteQuietly();
        }
        try {
            json = json != null ? json : document(false);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON document in memory cannot fail to write", e);
        }
        return new ServerMetricsScraper.Series(endpoint, measuredFromMs, new ServerMetricsScraper.Counts(scrapes, ok,
                failures, badLines, firstError, firstBad, leftOut), summaries, json);
    }

    /** The series document; with {@code scrapes}, the recorded lines, one at a time, as its {@code scrapes}. */
    private String document(boolean withScrapes) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.getFactory().createGenerator(buf).useDefaultPrettyPrinter()) {
            g.writeStartObject();
            g.writeStringField("format", "isobench-server-metrics/1");
            g.writeStringField("endpoint", endpoint);
            g.writeNumberField("interval_ms", intervalMs);
            if (!Double.isNaN(measuredFromMs)) {
                g.writeNumberField("measured_from_ms", Math.round(measuredFromMs * 10) / 10.0);
            }
            g.writeObjectFieldStart("types");
            for (Map.Entry<String, String> t : types.entrySet()) {
                g.writeStringField(t.getKey(), t.getValue());
            }
            g.writeEndObject();
            if (typesLeftOut > 0) {
                g.writeNumberField("types_left_out", typesLeftOut);
            }
            if (leftOut > 0) {
                g.writeNumberField("scrapes_left_out", leftOut);
                g.writeNumberField("series_cap_bytes", capBytes);
            }
            if (fileError != null) {
                g.writeStringField("series_error", fileError);
            }
            g.writeArrayFieldStart("scrapes");
            if (withScrapes) {
                index.sort(Comparator.comparingDouble(Line::tMs));
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    for (Line l : index) {
                        ByteBuffer b = ByteBuffer.allocate(l.length());
                        while (b.hasRemaining() && ch.read(b, l.offset() + b.position()) >= 0) {
                            // read the whole line
                        }
                        g.writeTree(JSON.readTree(b.array()));
                    }
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return buf.toString(StandardCharsets.UTF_8) + "\n";
    }

    private record Line(double tMs, long offset, int length) {
    }

    /**
     * One scrape as a JSON line: {@code {"t_ms", "error"?, "bad_lines"?, "errors"?, "samples": {key: value}}};
     * non-finite values (NaN) are left out of {@code samples}.
     */
    private static byte[] line(ServerMetricsScraper.Scrape s) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.getFactory().createGenerator(buf)) {
            g.writeStartObject();
            g.writeNumberField("t_ms", Math.round(s.tMs() * 10) / 10.0);
            if (s.error() != null) {
                g.writeStringField("error", s.error());
            } else {
                PromText.Exposition e = s.exposition();
                if (e.badLines() > 0) {
                    g.writeNumberField("bad_lines", e.badLines());
                    g.writeArrayFieldStart("errors");
                    for (String err : e.errors()) {
                        g.writeString(err);
                    }
                    g.writeEndArray();
                }
                g.writeObjectFieldStart("samples");
                for (PromText.Sample x : e.samples()) {
                    if (Double.isFinite(x.value())) {
                        g.writeNumberField(x.key(), x.value());
                    }
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        buf.write('\n');
        return buf.toByteArray();
    }

    private void closeQuietly() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                fileError = fileError == null ? "could not close " + file + ": " + e.getMessage() : fileError;
            }
            out = null;
        }
    }

    private void deleteQuietly() {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temporary file left behind is no reason to lose the run's series
            }
        }
    }
}
