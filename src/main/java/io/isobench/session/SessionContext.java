package io.isobench.session;

import io.isobench.env.Hardware;
import io.isobench.exec.ExecutorKind.Capability;
import io.isobench.plan.Plan;
import io.isobench.store.Store;
import io.isobench.task.Suite;

/**
 * What the pieces of one session share: the store, the suite and its plan, the runner's options.
 *
 * @param hardware the machine the runs measure on; null for cluster executors (their nodes are not fingerprinted)
 */
record SessionContext(Store store, Suite suite, Plan plan, SessionRunner.Options options, Hardware hardware) {

    /** The context of a session; an executor that runs its jobs on this machine has it fingerprinted. */
    static SessionContext of(Store store, Suite suite, Plan plan, SessionRunner.Options options) {
        return new SessionContext(store, suite, plan, options,
                options.executor().kind().can(Capability.RUNS_ON_THIS_HOST) ? Hardware.detect() : null);
    }

    SessionListener listener() {
        return options.listener();
    }
}
