package io.isobench.report;

import io.isobench.Arm;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/** One colour per arm for the whole site (baseline, human, agents in name order). */
record Colours(Map<String, String> agents) {

    static Colours of(ReportModel model) {
        TreeSet<String> names = new TreeSet<>(model.legacy().agents().keySet());
        for (NativeTask t : model.tasks()) {
            for (Arm a : t.result().agentArms()) {
                names.add(a.agentName());
            }
        }
        Map<String, String> m = new LinkedHashMap<>();
        int i = 0;
        for (String n : names) {
            m.put(n, Html.AGENTS[i++ % Html.AGENTS.length]);
        }
        return new Colours(m);
    }

    /** The colour of an arm shown by its label (an agent's label or bare name: the agent's colour). */
    String of(String label) {
        Arm arm = Arm.ofStored(label);
        return switch (arm.kind()) {
            case BASELINE -> Html.BASELINE;
            case HUMAN -> Html.HUMAN;
            case BASELINE_AA -> Html.BASELINE_AA;
            case AGENT -> agents.getOrDefault(arm.agentName(), "#777777");
            case OTHER -> agents.getOrDefault(label, "#777777");
        };
    }
}
