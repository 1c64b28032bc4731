package io.isobench.legacy;

import io.isobench.Arm;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Detects a file's legacy format from its canonical relative path ({@code /}-separated). */
final class FormatDetector {

    private static final String HEX = "([0-9a-fA-F]{7,40})";

    private static final Pattern EXPORT =
            Pattern.compile("(?:^|/)(?:hf_export|exports)/(?:[^/]+/)*[^/]+\\.(?:parquet|csv|jsonl|json)$");
    private static final Pattern R13 =
            Pattern.compile("(?:^|/)(?:omniperf_report_[^/]*|native_benchmark_report_[^/]*)\\.json$");
    private static final Pattern R2 = Pattern.compile("(?:^|/)logs/(?:[^/]+/)*[^/]*_progress\\.json$");
    private static final Pattern R8 = Pattern.compile("(?:^|/)reruns/4_fixable/" + HEX + "_result\\.json$");
    private static final Pattern R7 = Pattern.compile("(?:^|/)results/docker/" + HEX + "/benchmark_result\\.json$");
    private static final Pattern R6 = Pattern.compile("(?:^|/)results/docker/" + HEX + "_result\\.json$");
    private static final Pattern R1 = Pattern.compile("(?:^|/)results/modal/" + HEX + "/benchmark_result\\.json$");
    private static final Pattern R4 =
            Pattern.compile("(?:^|/)results/separate_agent/" + HEX + "_(human|agent)_result\\.json$");
    private static final Pattern R5 =
            Pattern.compile("(?:^|/)results/separate_baseline/" + HEX + "_(baseline)_result\\.json$");
    private static final Pattern R3 = Pattern.compile("(?:^|/)results/" + HEX + "_(baseline|human|agent)_result\\.json$");
    private static final Pattern R9 = Pattern.compile("(?:^|/)sglang/" + HEX + "/benchmark_result\\.json$");
    private static final Pattern NATIVE = Pattern.compile(
            "(?:^|/)omniperf_results[^/]*/vllm/" + HEX + "/(benchmark_result\\.json|stdout\\.txt|stderr\\.txt)$");
    private static final Pattern TREE = Pattern.compile("(?:^|/)omniperf_results_3way_([^/]+)/");

    private FormatDetector() {
    }

    /**
     * What the path says.
     *
     * @param format     detected format; R11/R12 files are reported as R12 with {@code microOrNative} set, the content
     *                   decides
     * @param commit     commit id from the path, or null
     * @param arm        arm from the file name (baseline|human|agent), or null
     * @param agent      agent named by the tree folder (normalized), or null
     * @param engine     vllm or sglang
     * @param sidecar    stdout.txt / stderr.txt beside an R11/R12 result
     */
    record Detection(LegacyFormat format, String commit, String arm, String agent, String engine,
                     boolean microOrNative, boolean sidecar) {
    }

    static Detection detect(String path) {
        String agent = null;
        String engine = "vllm";
        Matcher t = TREE.matcher(path);
        if (t.find()) {
            String a = Arm.normalizeAgent(t.group(1));
            if (a.equals("sglang")) {
                engine = "sglang";
            } else {
                agent = a;
            }
        }
        Matcher m;
        if (EXPORT.matcher(path).find()) {
            return new Detection(LegacyFormat.EXPORT, null, null, agent, engine, false, false);
        }
        if (R13.matcher(path).find()) {
            return new Detection(LegacyFormat.R13, null, null, agent, engine, false, false);
        }
        if (R2.matcher(path).find()) {
            return new Detection(LegacyFormat.R2, null, null, agent, engine, false, false);
        }
        if ((m = R8.matcher(path)).find()) {
            return new Detection(LegacyFormat.R8, lower(m.group(1)), null, agent, engine, false, false);
        }
        if ((m = R7.matcher(path)).find()) {
            return new Detection(LegacyFormat.R7, lower(m.group(1)), null, agent, engine, false, false);
        }
        if ((m = R6.matcher(path)).find()) {
            return new Detection(LegacyFormat.R6, lower(m.group(1)), null, agent, engine, false, false);
        }
        if ((m = R1.matcher(path)).find()) {
            return new Detection(LegacyFormat.R1, lower(m.group(1)), null, agent, engine, false, false);
        }
        if ((m = R4.matcher(path)).find()) {
            return new Detection(LegacyFormat.R4, lower(m.group(1)), m.group(2), agent, engine, false, false);
        }
        if ((m = R5.matcher(path)).find()) {
            return new Detection(LegacyFormat.R5, lower(m.group(1)), m.group(2), agent, engine, false, false);
        }
        if ((m = R3.matcher(path)).find()) {
            return new Detection(LegacyFormat.R3, lower(m.group(1)), m.group(2), agent, engine, false, false);
        }
        if ((m = R9.matcher(path)).find()) {
            return new Detection(LegacyFormat.R9, lower(m.group(1)), null, null, "sglang", false, false);
        }
        if ((m = NATIVE.matcher(path)).find()) {
            boolean sidecar = !m.group(2).equals("benchmark_result.json");
            return new Detection(LegacyFormat.R12, lower(m.group(1)), null, agent, engine, true, sidecar);
        }
        return new Detection(LegacyFormat.OTHER, null, null, agent, engine, false, false);
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
