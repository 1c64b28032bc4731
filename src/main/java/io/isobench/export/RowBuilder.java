package io.isobench.export;

import io.isobench.store.Pipeline;
import io.isobench.Arm;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.store.RunRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the runs of one commit into export rows: one per (commit, agent). Rows imported from an HF table are
 * referenced (their 76 values are written back verbatim); other rows are computed from legacy or native runs.
 *
 * <p>Legacy runs follow exactly the 3-way rules of {@code isobench table} ({@link ThreeWayTable#row}): its pipeline,
 * mode, values, deltas, comparability, status and issues; the schema-v5 value columns come from the chosen pipeline's
 * runs. Native runs (with rounds): medians per arm; among native pipelines the first with three same-run values and
 * defined deltas, else three values, else the most values. When a (commit, agent) has both, {@link #prefer} decides.
 */
final class RowBuilder {

    /** Pipelines in the legacy precedence order; anything else (native, …) comes after them. */
    static final List<String> PRECEDENCE = List.of("rerun_4_fixable", "docker_3way", "modal",
            "run_2026-01-18/19", "run_2026-01-18", "run_2026-01-19", "separate");
    static final double LEGACY_BAND_PCT = 5.0;
    static final String SINGLE_RUN_RULE = "single-run legacy data, ±5 % band";
    static final String ROUNDS_RULE = "rounds: medians exported; CI/verdicts not computed by this export";

    /** A row of the export: either a reference to an imported HF row or computed v5 values; plus isobench columns. */
    record Built(String commitShort, String agent, String hfRowSha, Object[] v5, Object[] iso) {
    }

    private RowBuilder() {
    }

    static List<Built> build(List<RunRecord> runs) {
        List<Built> out = new ArrayList<>();
        if (runs.isEmpty()) {
            return out;
        }
        String commitShort = runs.get(0).commitShort();
        Map<String, List<RunRecord>> hfByKey = new LinkedHashMap<>();
        List<RunRecord> other = new ArrayList<>();
        for (RunRecord r : runs) {
            switch (r.kind()) {
                case HF_IMPORT -> hfByKey.computeIfAbsent(extra(r, "hf_row"), k -> new ArrayList<>()).add(r);
                case LEGACY, MEASURED -> other.add(r);
                default -> {
                    // superseded attempts, single-version and micro runs are never 3-way rows
                }
            }
        }
        Map<String, Object[]> computedIso = new LinkedHashMap<>();
        Map<String, Object[]> computedV5 = new LinkedHashMap<>();
        List<RunRecord> legacy = new ArrayList<>();
        List<RunRecord> measured = new ArrayList<>();
        for (RunRecord r : other) {
            (r.kind() == RunRecord.RunKind.LEGACY ? legacy : measured).add(r);
        }
        Set<String> agents = new LinkedHashSet<>();
        for (RunRecord r : legacy) {
            if (r.agent() != null) {
                agents.add(Arm.normalizeAgent(r.agent()));
            }
        }
        agents.addAll(agentsOf(measured));
        for (String agent : agents) {
            RunGroup legacyGroup = null;
            List<RunRecord> mineLegacy = new ArrayList<>();
            for (RunRecord r : legacy) {
                if (r.agent() != null && Arm.normalizeAgent(r.agent()).equals(agent)) {
                    mineLegacy.add(r);
                }
            }
            if (!mineLegacy.isEmpty()) {
                Optional<ThreeWayRow> tw = ThreeWayTable.row(commitShort, mineLegacy);
                if (tw.isPresent()) {
                    List<RunRecord> chosen = new ArrayList<>();
                    for (RunRecord r : mineLegacy) {
                        if (tw.get().pipeline().equals(Pipeline.labelOf(r.pipeline())) && !recovered(r)) {
                            chosen.add(r);
                        }
                    }
                    legacyGroup = RunGroup.of(chosen, tw.get().pipeline());
                    legacyGroup.legacy = tw.get();
                }
            }
            RunGroup nativeGroup = null;
            List<RunRecord> mine = new ArrayList<>();
            for (RunRecord r : measured) {
                String a = agentOfRun(r);
                if (a == null || a.equals(agent)) {
                    mine.add(r);
                }
            }
            if (!mine.isEmpty()) {
                nativeGroup = RunGroup.choose(mine);
            }
            RunGroup g = prefer(legacyGroup, nativeGroup);
            if (g == null) {
                continue;
            }
            computedIso.put(agent, g.isobench(agent, null));
            computedV5.put(agent, g.v5(commitShort, agent));
        }
        Set<String> coveredByHf = new LinkedHashSet<>();
        for (Map.Entry<String, List<RunRecord>> e : hfByKey.entrySet()) {
            List<RunRecord> hf = e.getValue();
            String agent = hf.get(0).agent();
            Object[] iso = agent != null ? computedIso.get(agent) : null;
            if (iso == null) {
                RunGroup g = RunGroup.of(hf, HfImporter.PIPELINE);
                g.forcedComparability = hfComparability(extra(hf.get(0), "data_source"));
                iso = g.isobench(agent, extra(hf.get(0), "agent_model"));
            } else {
                iso = iso.clone();
                iso[isoIndex("isobench_agent_model")] = extra(hf.get(0), "agent_model");
            }
            if (agent != null) {
                coveredByHf.add(agent);
            }
            out.add(new Built(commitShort, agent, e.getKey(), null, iso));
        }
        for (Map.Entry<String, Object[]> e : computedV5.entrySet()) {
            if (!coveredByHf.contains(e.getKey())) {
                out.add(new Built(commitShort, e.getKey(), null, e.getValue(), computedIso.get(e.getKey())));
            }
        }
        return out;
    }

    /** A legacy file marked recovered (legacy-import.md) is never a 3-way source. */
    static boolean recovered(RunRecord r) {
        return r.details().recovered();
    }

    /** Legacy 3-way row or native row for one (commit, agent): complete same-run first, then three values, then most values, legacy on ties. */
    static RunGroup prefer(RunGroup legacy, RunGroup nativeGroup) {
        if (legacy == null || nativeGroup == null) {
            return legacy == null ? nativeGroup : legacy;
        }
        boolean lc = "complete_3way_same_run".equals(legacy.legacy.status());
        boolean nc = "complete_3way_same_run".equals(nativeGroup.status(nativeGroup.comparability()));
        if (lc != nc) {
            return lc ? legacy : nativeGroup;
        }
        int lv = legacy.valuesPresent();
        int nv = nativeGroup.valuesPresent();
        return nv > lv ? nativeGroup : legacy;
    }

    /** Published rows do not say whether the arms ran together: only single-invocation sources are same_run. */
    static String hfComparability(String dataSource) {
        return ThreeWayTable.oneInvocation(dataSource) ? "same_run" : "cross_run";
    }

    private static Set<String> agentsOf(List<RunRecord> runs) {
        Set<String> agents = new LinkedHashSet<>();
        for (RunRecord r : runs) {
            String a = agentOfRun(r);
            if (a != null) {
                agents.add(a);
            }
        }
        return agents;
    }

    /** The agent a run belongs to: the agent of an agent arm, else the run's tree agent (legacy), else null (shared). */
    static String agentOfRun(RunRecord r) {
        if (r.arm().kind() == Arm.Kind.AGENT) {
            return Arm.normalizeAgent(r.arm().agentName());
        }
        return r.agent() == null ? null : Arm.normalizeAgent(r.agent());
    }

    static String extra(RunRecord r, String key) {
        return r.details().string(key);
    }

    static int isoIndex(String name) {
        for (int i = 0; i < HfSchema.ISOBENCH.size(); i++) {
            if (HfSchema.ISOBENCH.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no isobench column " + name);
    }

    static void set(Object[] iso, String column, Object value) {
        iso[isoIndex(column)] = value;
    }
}
