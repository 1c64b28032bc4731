package io.isobench.session;

import io.isobench.analysis.SequentialDesign;
import io.isobench.task.RoundsPlan;

import java.util.EnumSet;
import java.util.Set;

/** A suite's rounds plan as the analysis' design, and back (a resumed session plans with the design it stored). */
final class Designs {

    private Designs() {
    }

    /** The design of a rounds plan: fixed, or adaptive with its looks, spending, futility and gating. */
    static SequentialDesign of(RoundsPlan p) {
        if (!p.adaptive()) {
            return SequentialDesign.fixed(p.maxRounds());
        }
        Set<SequentialDesign.Gate> gates = EnumSet.noneOf(SequentialDesign.Gate.class);
        p.gating().forEach(g -> gates.add(SequentialDesign.Gate.fromLabel(g)));
        return SequentialDesign.adaptive(p.minRounds(), p.maxRounds(), SequentialDesign.Spending.fromLabel(
                p.spending())).withFutility(p.futilityPower()).withGating(gates);
    }

    /** The rounds plan of a stored design. */
    static RoundsPlan plan(SequentialDesign d) {
        if (!d.adaptive()) {
            return RoundsPlan.fixed(d.maxRounds());
        }
        return new RoundsPlan(true, d.minRounds(), d.maxRounds(), d.spending().label(), d.futilityPower(),
                d.gating().stream().map(SequentialDesign.Gate::label).toList());
    }
}
