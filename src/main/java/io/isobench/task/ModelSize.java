package io.isobench.task;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parameter-count estimate from a model name alone (no model hub at hand): counts written in the name
 * ({@code 70B}, {@code 8x7B}, {@code 125m}, {@code 30B-A3B} → total 30B), a small table for names without one or
 * whose written count misleads (Mixtral's experts share attention; Llama 4's "17B" is the active count), and the
 * weight precision from the name ({@code FP8}, {@code AWQ}…). An estimate, stated as such wherever it is used.
 */
public record ModelSize(String model, double paramsB, double bytesPerParam, String basis) {

    /** What one H100 holds, in GB, for the "does it fit" estimate. */
    public static final double H100_MEMORY_GB = 80.0;
    /** Weights × this = what the engine needs to run usefully (KV cache, activations, CUDA graphs). */
    public static final double HEADROOM = 1.2;

    private record Known(Pattern name, double paramsB, Double bytesPerParam, String note) {
    }

    // Order matters: the first match wins.
    private static final List<Known> TABLE = List.of(
            known("mixtral-8x7b", 46.7, null, "Mixtral 8x7B: 46.7B total (experts share attention)"),
            known("mixtral-8x22b", 141, null, "Mixtral 8x22B: 141B total"),
            known("llama-4-scout-17b-16e", 109, null, "Llama 4 Scout: 109B total (17B active)"),
            known("llama-4-maverick-17b-128e", 400, null, "Llama 4 Maverick: 400B total (17B active)"),
            known("deepseek-(coder-)?v2(\\.5)?-lite", 15.7, null, "DeepSeek-V2-Lite: 15.7B total"),
            known("deepseek-(coder-)?v2(\\.5)?(?!-lite)", 236, null, "DeepSeek-V2: 236B total"),
            known("deepseek-(v3|r1)(?!-distill)", 671, 1.0, "DeepSeek-V3/R1: 671B total, FP8 weights"),
            known("phi-1_5", 1.4, null, "phi-1.5: 1.4B"),
            known("phi-2", 2.7, null, "phi-2: 2.7B"),
            known("gpt2(?!-)", 0.124, null, "GPT-2: 124M"),
            known("gpt-oss-120b", 117, 0.55, "gpt-oss-120b: 117B, MXFP4 weights"),
            known("gpt-oss-20b", 21, 0.55, "gpt-oss-20b: 21B, MXFP4 weights"));

    private static Known known(String regex, double paramsB, Double bytes, String note) {
        return new Known(Pattern.compile("(^|[/_-])" + regex, Pattern.CASE_INSENSITIVE), paramsB, bytes, note);
    }

    private static final Pattern MOE = Pattern.compile(
            "(?<![A-Za-z0-9.])(\\d+)x(\\d+(?:\\.\\d+)?)([BbMm])(?![A-Za-z0-9])");
    private static final Pattern COUNT = Pattern.compile(
            "(?<![A-Za-z0-9.])(\\d+(?:\\.\\d+)?)([BbMm])(?![A-Za-z0-9])");
    private static final Pattern FP8 = Pattern.compile("(?i)(^|[-_/.])(fp8|w8a8|w8a16|int8|8bit|float8)([-_.]|$)");
    private static final Pattern FOUR_BIT = Pattern.compile(
            "(?i)(^|[-_/.])(awq|gptq|int4|4bit|w4a16|w4a8|nf4|bnb-4bit|mxfp4|fp4|nvfp4)([-_.]|$)");

    public ModelSize {
        if (!(paramsB > 0)) {
            throw new IllegalArgumentException("paramsB (" + paramsB + ") must be > 0");
        }
        if (!(bytesPerParam > 0)) {
            throw new IllegalArgumentException("bytesPerParam (" + bytesPerParam + ") must be > 0");
        }
    }

    /** The estimate for a model name (HF id or path); empty when the name carries no usable hint. */
    public static Optional<ModelSize> estimate(String model) {
        return estimate(model, null);
    }

    /**
     * The estimate for a model name and the command's {@code --quantization} method (null when none): a method that
     * stores 8-bit weights (fp8, int8, w8a8…) counts 1 byte a parameter, a 4-bit one (awq, gptq, marlin,
     * bitsandbytes, fp4…) half a byte, whatever the name says; an unknown method leaves the name's precision.
     */
    public static Optional<ModelSize> estimate(String model, String quantization) {
        if (model == null || model.isBlank()) {
            return Optional.empty();
        }
        String name = model.trim();
        String base = name.substring(name.lastIndexOf('/') + 1);
        double bytes = 2.0;
        String precision = "2 bytes/param (16-bit)";
        Double quant = quantizedBytes(quantization);
        if (quant != null) {
            bytes = quant;
            precision = fmt(bytes) + (bytes == 1.0 ? " byte" : " bytes") + "/param (--quantization " + quantization.strip()
                    + ")";
        } else if (FOUR_BIT.matcher(base).find()) {
            bytes = 0.5;
            precision = "0.5 bytes/param (4-bit weights per the name)";
        } else if (FP8.matcher(base).find()) {
            bytes = 1.0;
            precision = "1 byte/param (8-bit weights per the name)";
        }
        for (Known k : TABLE) {
            if (k.name.matcher(base).find()) {
                boolean nativePrecision = k.bytesPerParam != null && bytes == 2.0 && quant == null;
                double b = nativePrecision ? k.bytesPerParam : bytes;
                String p = nativePrecision ? fmt(b) + (b == 1.0 ? " byte" : " bytes") + "/param (native)" : precision;
                return Optional.of(new ModelSize(name, k.paramsB, b, k.note + ", " + p));
            }
        }
        Matcher moe = MOE.matcher(base);
        if (moe.find()) {
            double p = Integer.parseInt(moe.group(1)) * Double.parseDouble(moe.group(2)) * unit(moe.group(3));
            return Optional.of(new ModelSize(name, p, bytes,
                    moe.group() + " in the name: " + fmt(p) + "B (upper bound, experts × size), " + precision));
        }
        Matcher m = COUNT.matcher(base);
        if (m.find()) {
            double p = Double.parseDouble(m.group(1)) * unit(m.group(2));
            return Optional.of(new ModelSize(name, p, bytes, m.group() + " in the name, " + precision));
        }
        return Optional.empty();
    }

    /** Bytes a weight takes under a {@code --quantization} method; null when none is given or it is unknown. */
    static Double quantizedBytes(String method) {
        if (method == null || method.isBlank()) {
            return null;
        }
        String m = method.strip().toLowerCase(Locale.ROOT);
        if (m.contains("fp4") || m.contains("int4") || m.contains("w4a") || m.contains("awq") || m.contains("gptq")
                || m.contains("marlin") || m.contains("bitsandbytes") || m.contains("nf4") || m.equals("gguf")
                || m.equals("aqlm") || m.equals("squeezellm") || m.equals("hqq")) {
            return 0.5;
        }
        if (m.contains("fp8") || m.contains("int8") || m.contains("w8a") || m.equals("modelopt")
                || m.equals("deepspeedfp") || m.equals("fbgemm_fp8") || m.equals("qqq")) {
            return 1.0;
        }
        return null;
    }

    private static double unit(String u) {
        return u.equalsIgnoreCase("m") ? 0.001 : 1.0;
    }

    /** Weights in GB (1 GB = 1e9 bytes). */
    public double weightsGb() {
        return paramsB * bytesPerParam;
    }

    /** Weights plus headroom, in GB. */
    public double neededGb() {
        return weightsGb() * HEADROOM;
    }

    /**
     * GPUs (of {@code gpuMemoryGb} each) the model needs, rounded up to a power of two because tensor parallelism
     * must divide the attention heads.
     */
    public int gpusNeeded(double gpuMemoryGb) {
        int raw = (int) Math.ceil(neededGb() / gpuMemoryGb);
        int g = 1;
        while (g < raw) {
            g *= 2;
        }
        return g;
    }

    public int gpusNeeded() {
        return gpusNeeded(H100_MEMORY_GB);
    }

    static String fmt(double v) {
        if (v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, v < 1 ? "%.3f" : "%.1f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }
}
