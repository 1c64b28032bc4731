package io.isobench.exec;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * GPU telemetry of one measured run (docs/gpu-telemetry.md): the lines of {@code nvidia-smi --query-gpu=FIELDS
 * --format=csv,noheader,nounits -lms N} parsed into samples, and the run's metrics from them (mean/max power,
 * energy by the trapezoid rule, energy per output token, mean SM and memory clocks, max temperature, the share of
 * samples with a throttle reason). Pure: {@link GpuSampler} runs the process.
 */
public final class GpuTelemetry {

    /** The queried fields in order; index 10 is the throttle bitmask under either of its names. */
    public static final List<String> FIELDS = List.of("timestamp", "index", "uuid", "power.draw", "clocks.sm",
            "clocks.mem", "temperature.gpu", "utilization.gpu", "utilization.memory", "memory.used",
            "clocks_throttle_reasons.active", "enforced.power.limit");
    /** The throttle bitmask's name on drivers that renamed it (R535+ accept both; some newer ones only this). */
    public static final String EVENT_REASONS = "clocks_event_reasons.active";

    /**
     * Bits of the bitmask that mean the clocks were held down: SW power cap 0x4, HW slowdown 0x8, SW thermal 0x20,
     * HW thermal 0x40, HW power brake 0x80. Not counted: GPU idle 0x1, applications clocks setting 0x2, sync boost
     * 0x10, display clock 0x100 (settings and idleness, not throttling).
     */
    public static final long THROTTLE_MASK = 0x4L | 0x8L | 0x20L | 0x40L | 0x80L;

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS", Locale.ROOT);

    private GpuTelemetry() {
    }

    /**
     * One sample of one GPU; a value nvidia-smi reports as {@code [N/A]} or {@code [Not Supported]} is null.
     *
     * @param epochMs time of the sample (nvidia-smi's local time read as UTC: only differences are used)
     * @param index   the GPU's index
     * @param uuid    the GPU's UUID
     * @param values  power W, SM MHz, memory MHz, temperature °C, util %, memory util %, memory used MiB, power
     *                limit W (nulls allowed)
     * @param reasons the throttle bitmask, or null
     */
    public record Sample(long epochMs, int index, String uuid, Values values, Long reasons) {

        /** True when a counted throttle bit is set ({@link #THROTTLE_MASK}). */
        public boolean throttled() {
            return reasons != null && (reasons & THROTTLE_MASK) != 0;
        }
    }

    /** The numeric columns of a sample. */
    public record Values(Double powerW, Double smMhz, Double memMhz, Double tempC, Double utilPct, Double memUtilPct,
                         Double memUsedMib, Double powerLimitW) {
    }

    /** Parsed lines: the samples, and the lines rejected (a line cut mid-way, an error message) with the reason. */
    public record Parsed(List<Sample> samples, List<String> rejected) {
    }

    /**
     * A time window in the samples' clock (nvidia-smi's local time read as UTC, {@link Sample#epochMs()}): the
     * measured phase of a run, in which energy, power and the means are computed (docs/gpu-telemetry.md, "The energy
     * window").
     *
     * @param startMs first instant, inclusive
     * @param endMs   last instant, inclusive (not before {@code startMs})
     */
    public record Window(long startMs, long endMs) {
        public Window {
            if (endMs < startMs) {
                throw new IllegalArgumentException("window ends (" + endMs + ") before it starts (" + startMs + ")");
            }
        }

        /**
         * The window from {@code start} to {@code end} in the clock of samples nvidia-smi stamped with its local time
         * in {@code zone} (the zone of this JVM for a sampler it started).
         */
        public static Window of(Instant start, Instant end, ZoneId zone) {
            return new Window(LocalDateTime.ofInstant(start, zone).toInstant(ZoneOffset.UTC).toEpochMilli(),
                    LocalDateTime.ofInstant(end, zone).toInstant(ZoneOffset.UTC).toEpochMilli());
        }

        boolean contains(long t) {
            return t >= startMs && t <= endMs;
        }
    }

    /** Parses nvidia-smi's CSV lines (no header, no units); never throws on bad input: it is rejected. */
    public static Parsed parse(List<String> lines) {
        List<Sample> out = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length != FIELDS.size()) {
                rejected.add("line with " + f.length + " of " + FIELDS.size() + " fields: " + clip(line));
                continue;
            }
            try {
                long t = LocalDateTime.parse(f[0].strip(), TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
                int index = Integer.parseInt(f[1].strip());
                Values v = new Values(num(f[3]), num(f[4]), num(f[5]), num(f[6]), num(f[7]), num(f[8]), num(f[9]),
                        num(f[11]));
                out.add(new Sample(t, index, f[2].strip(), v, bits(f[10])));
            } catch (DateTimeParseException | NumberFormatException e) {
                rejected.add("unreadable line (" + e.getMessage() + "): " + clip(line));
            }
        }
        return new Parsed(Collections.unmodifiableList(out), Collections.unmodifiableList(rejected));
    }

    /** A number, or null for nvidia-smi's {@code [N/A]}, {@code [Not Supported]}, {@code [Unknown Error]}, blank. */
    static Double num(String s) {
        String t = s.strip();
        if (t.isEmpty() || t.startsWith("[") || t.equalsIgnoreCase("N/A")) {
            return null;
        }
        double d = Double.parseDouble(t);
        if (!Double.isFinite(d)) {
            throw new NumberFormatException("not finite: " + t);
        }
        return d;
    }

    /** A hex bitmask ({@code 0x0000000000000004}), or null when not reported. */
    static Long bits(String s) {
        String t = s.strip();
        if (t.isEmpty() || t.startsWith("[") || t.equalsIgnoreCase("N/A")) {
            return null;
        }
        if (t.startsWith("0x") || t.startsWith("0X")) {
            return Long.parseUnsignedLong(t.substring(2), 16);
        }
        return Long.parseLong(t);
    }

    /**
     * The run's metrics (snake_case keys, insertion-ordered; a key is absent when no sample carried its value).
     * Power and energy are summed over GPUs: {@code gpu_energy_j} = Σ per GPU of the trapezoid over its samples in
     * time order; {@code gpu_power_w_mean} = Σ per GPU of its time-weighted mean (energy / span; the sample mean
     * when a GPU has one sample); {@code gpu_power_w_max} = the highest single-GPU draw. Clocks, temperature and
     * utilisation are over every sample of every GPU. {@code gpu_throttle_share} = samples with a counted throttle
     * bit / samples with a bitmask. {@code gpu_energy_per_output_token_j} only when {@code outputTokens > 0}.
     */
    public static Map<String, Object> metrics(List<Sample> samples, Long outputTokens) {
        return metrics(samples, outputTokens, null);
    }

    /**
     * As {@link #metrics(List, Long)} over the part of the series inside {@code window} (null: all of it). Energy is
     * the integral of each GPU's power, linear between its consecutive samples, over the window: a segment that
     * straddles an edge is cut there and its power at the edge interpolated, so the trapezoids of the window add up
     * to the window's share of the whole run's energy. {@code gpu_power_w_mean} is that energy / the covered span,
     * {@code gpu_sampled_s} the covered span. Every other statistic (clocks, utilisation, temperature, memory,
     * throttle share, sample counts) is over the samples stamped inside the window.
     */
    public static Map<String, Object> metrics(List<Sample> all, Long outputTokens, Window window) {
        List<Sample> samples = window == null ? all
                : all.stream().filter(s -> window.contains(s.epochMs())).toList();
        Map<String, Object> m = new LinkedHashMap<>();
        Map<Integer, List<Sample>> byGpu = new TreeMap<>();
        for (Sample s : all) {
            byGpu.computeIfAbsent(s.index(), k -> new ArrayList<>()).add(s);
        }
        m.put("gpu_samples", samples.size());
        m.put("gpus", (int) samples.stream().mapToInt(Sample::index).distinct().count());
        double energy = 0;
        double meanPower = 0;
        boolean anyPower = false;
        double span = 0;
        for (List<Sample> g : byGpu.values()) {
            g.sort(Comparator.comparingLong(Sample::epochMs));
            Power p = power(g, window);
            if (p != null) {
                anyPower = true;
                energy += p.energyJ;
                meanPower += p.meanW;
                span = Math.max(span, p.spanS);
            }
        }
        if (anyPower) {
            m.put("gpu_power_w_mean", round(meanPower));
            Double peak = max(samples, v -> v.powerW());
            if (peak != null) {
                m.put("gpu_power_w_max", round(peak));
            }
            m.put("gpu_energy_j", round(energy));
            m.put("gpu_sampled_s", round(span));
            if (outputTokens != null && outputTokens > 0) {
                m.put("gpu_energy_per_output_token_j", round6(energy / outputTokens));
            }
        }
        putMean(m, "gpu_sm_clock_mhz_mean", samples, v -> v.smMhz());
        putMean(m, "gpu_mem_clock_mhz_mean", samples, v -> v.memMhz());
        Double t = max(samples, v -> v.tempC());
        if (t != null) {
            m.put("gpu_temp_c_max", t);
        }
        putMean(m, "gpu_util_pct_mean", samples, v -> v.utilPct());
        putMean(m, "gpu_mem_util_pct_mean", samples, v -> v.memUtilPct());
        Double used = max(samples, v -> v.memUsedMib());
        if (used != null) {
            m.put("gpu_mem_used_mib_max", used);
        }
        Double limit = max(samples, v -> v.powerLimitW());
        if (limit != null) {
            m.put("gpu_power_limit_w", limit);
        }
        int withBits = 0;
        int throttled = 0;
        long union = 0;
        for (Sample s : samples) {
            if (s.reasons() != null) {
                withBits++;
                union |= s.reasons();
                throttled += s.throttled() ? 1 : 0;
            }
        }
        if (withBits > 0) {
            m.put("gpu_throttle_share", round6((double) throttled / withBits));
            m.put("gpu_throttle_reasons_seen", String.format(Locale.ROOT, "0x%016x", union));
        }
        return Collections.unmodifiableMap(m);
    }

    private record Power(double energyJ, double meanW, double spanS) {
    }

    /**
     * One GPU's energy (trapezoid over consecutive samples that both have a draw, each segment cut to the window with
     * the power interpolated at a cut) and time-weighted mean; null when it has no draw in the window.
     */
    private static Power power(List<Sample> g, Window window) {
        double energy = 0;
        double span = 0;
        Sample prev = null;
        double sum = 0;
        int n = 0;
        for (Sample s : g) {
            Double w = s.values().powerW();
            if (w == null) {
                continue; // a gap: the trapezoid bridges it from the previous sample with a draw
            }
            if (window == null || window.contains(s.epochMs())) {
                sum += w;
                n++;
            }
            if (prev != null && s.epochMs() > prev.epochMs()) {
                long t0 = prev.epochMs();
                long t1 = s.epochMs();
                double p0 = prev.values().powerW();
                long lo = window == null ? t0 : Math.max(t0, window.startMs());
                long hi = window == null ? t1 : Math.min(t1, window.endMs());
                if (hi > lo) {
                    double pLo = p0 + (w - p0) * (lo - t0) / (t1 - t0);
                    double pHi = p0 + (w - p0) * (hi - t0) / (t1 - t0);
                    double dt = (hi - lo) / 1000.0;
                    energy += dt * (pLo + pHi) / 2.0;
                    span += dt;
                }
            }
            prev = s;
        }
        if (span == 0 && n == 0) {
            return null;
        }
        return new Power(energy, span > 0 ? energy / span : sum / n, span);
    }

    private static void putMean(Map<String, Object> m, String key, List<Sample> samples,
                                Function<Values, Double> f) {
        double sum = 0;
        int n = 0;
        for (Sample s : samples) {
            Double v = f.apply(s.values());
            if (v != null) {
                sum += v;
                n++;
            }
        }
        if (n > 0) {
            m.put(key, round(sum / n));
        }
    }

    private static Double max(List<Sample> samples, Function<Values, Double> f) {
        Double best = null;
        for (Sample s : samples) {
            Double v = f.apply(s.values());
            if (v != null && (best == null || v > best)) {
                best = v;
            }
        }
        return best;
    }

    private static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    private static double round6(double v) {
        return Math.round(v * 1e6) / 1e6;
    }

    private static String clip(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
