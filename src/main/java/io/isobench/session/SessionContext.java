package io.isobench.session;

import io.isobench.env.Hardware;
import io.isobench.plan.Plan;
import io.isobench.store.Store;
import io.isobench.task.Suite;

/**
 * What the pieces of one session share: the store, the suite and its plan, the runner's options.
 *
 * @param hardware the machine the runs measure on; null for cluster executors (their nodes are not fingerprinted)
 */
record SessionContext(Store store, Suite suite, Plan plan, SessionRunner.Options options, Hardware hardware) {

    /** The context of a session; the local and docker executors measure on this machine, which is fingerprinted. */
    static SessionContext of(Store store, Suite suite, Plan plan, SessionRunner.Options options) {
        String ex = options.executor().name();
        return new SessionContext(store, suite, plan, options,
                ex.equals("local") || ex.equals("docker") ? Hardware.detect() : null);
    }

    SessionListener listener() {
        return options.listener();
    }
}
