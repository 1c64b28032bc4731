package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.task.RoundsPlan;
import io.isobench.task.Suite;

/** {@code --rounds N|adaptive} of {@code run} and {@code demo}: over the suite's {@code run.rounds}. */
final class RoundsOption {

    /**
     * What the option chose.
     *
     * @param suite the suite, with adaptive rounds when the option asked for them
     * @param fixed a fixed number of rounds for the plan; null: the suite's rounds plan
     */
    record Choice(Suite suite, Integer fixed) {
    }

    private RoundsOption() {
    }

    static Choice of(String value, Suite suite) {
        if (value == null) {
            return new Choice(suite, null);
        }
        String v = value.trim();
        if (v.equals("adaptive")) {
            RoundsPlan p = suite.run().rounds();
            return new Choice(p.adaptive() ? suite : suite.withRun(suite.run().withRounds(RoundsPlan.DEFAULT)), null);
        }
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IsobenchException.BadInput("--rounds " + value + ": not a number of rounds or 'adaptive' (fix: e.g."
                    + " --rounds 5 or --rounds adaptive)");
        }
        if (n < 1 || n > 1000) {
            throw new IsobenchException.BadInput("--rounds (" + n + ") must be in 1..1000 (or adaptive)");
        }
        return new Choice(suite.withRun(suite.run().withRounds(RoundsPlan.fixed(n))), n);
    }
}
