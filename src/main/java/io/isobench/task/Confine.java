package io.isobench.task;

import java.util.List;
import java.util.Locale;

/**
 * Which measured processes run confined, and what they get (suite {@code run.confine}; docs/security.md, "Measured
 * arms"). Every measured process gets an allowlisted environment whatever {@code arms} says.
 *
 * @param arms         which arms run in the sandbox: {@code all} (the default: the human commit is third-party code
 *                     too), {@code agents} (agent arms only), {@code off} (none); the rule is recorded with the
 *                     session ({@code machine_json.confine})
 * @param passEnv      names of isobench's environment the measured processes get beyond the allowlist (an engine
 *                     that needs {@code HF_TOKEN} says so); never an agent runner's secret
 * @param writable     folders beyond the arm's own that confined commands may write (an engine's cache)
 * @param buildNetwork whether build steps keep the host's network (a build that downloads: {@code pip install});
 *                     measured commands never do
 */
public record Confine(Arms arms, List<String> passEnv, List<String> writable, boolean buildNetwork) {

    /** Which arms are confined. */
    public enum Arms {
        ALL, AGENTS, OFF;

        /** The suite's word for it. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final Confine DEFAULT = new Confine(Arms.ALL, List.of(), List.of(), false);

    public Confine {
        arms = arms == null ? Arms.ALL : arms;
        passEnv = passEnv == null ? List.of() : List.copyOf(passEnv);
        writable = writable == null ? List.of() : List.copyOf(writable);
    }

    /** Whether an arm of this label runs confined. */
    public boolean confines(boolean agentArm) {
        return arms == Arms.ALL || arms == Arms.AGENTS && agentArm;
    }

    /** The same settings with another arms rule. */
    public Confine withArms(Arms a) {
        return new Confine(a, passEnv, writable, buildNetwork);
    }
}
