package io.isobench.report;

import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.util.function.Consumer;

/**
 * The 3-way table of one agent ({@code isobench table}): the legacy rows ({@link ThreeWayTable}) first, then the rows
 * of native sessions ({@link NativeTable}). One session asked for: its native rows only.
 */
public final class AgentTable {

    private AgentTable() {
    }

    /**
     * @param sessionId null: every legacy row and every session; else that session's native rows only
     * @return the number of rows given to {@code sink}
     */
    public static int rows(Store store, String agent, String sessionId, Consumer<ThreeWayRow> sink) {
        int[] n = {0};
        Consumer<ThreeWayRow> counted = row -> {
            sink.accept(row);
            n[0]++;
        };
        if (sessionId == null) {
            ThreeWayTable.rows(store, agent, counted);
        }
        for (SessionRecord s : store.sessions()) {
            if (!s.isAgentsRun() && (sessionId == null || sessionId.equals(s.sessionId()))) {
                NativeTable.rows(SessionAnalysis.of(store, s.sessionId(), StatsConfig.defaults()), agent, counted);
            }
        }
        return n[0];
    }
}
