package io.isobench.report;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/** One colour per arm for the whole site (baseline, human, agents in name order). */
record Colours(Map<String, String> agents) {

    static Colours of(ReportModel model) {
        TreeSet<String> names = new TreeSet<>(model.legacy().agents().keySet());
        for (NativeTask t : model.tasks()) {
            for (String a : t.result().arms()) {
                if (a.startsWith("agent:")) {
                    names.add(a.substring("agent:".length()));
                }
            }
        }
        Map<String, String> m = new LinkedHashMap<>();
        int i = 0;
        for (String n : names) {
            m.put(n, Html.AGENTS[i++ % Html.AGENTS.length]);
        }
        return new Colours(m);
    }

    String of(String arm) {
        if (arm.equals("baseline")) {
            return Html.BASELINE;
        }
        if (arm.equals("human")) {
            return Html.HUMAN;
        }
        if (arm.equals(io.isobench.Arm.BASELINE_AA.label())) {
            return Html.BASELINE_AA;
        }
        String n = arm.startsWith("agent:") ? arm.substring("agent:".length()) : arm;
        return agents.getOrDefault(n, "#777777");
    }
}
