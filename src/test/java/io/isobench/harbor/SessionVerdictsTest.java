package io.isobench.harbor;

import io.isobench.AttemptSessions;
import io.isobench.Golden;
import io.isobench.cli.Main;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench verdicts} on the attempts store (task tpot: human 1.25×, replay valid; a@1 better but below the
 * human, a@2 better and opt_human): the JSON and the Harbor reward are goldens; the reward is numbers only, 1 for a
 * better agent.
 */
class SessionVerdictsTest {

    static final Path GOLDEN = Path.of("src/test/resources/golden/harbor");

    @TempDir
    static Path tmp;
    static String db;

    @BeforeAll
    static void store() {
        db = tmp.resolve("v.duckdb").toString();
        try (Store store = Stores.open(db)) {
            AttemptSessions.session(store, Instant.parse("2026-01-01T00:00:00Z"));
        }
    }

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] argv = new String[args.length + 2];
        argv[0] = "--db";
        argv[1] = db;
        System.arraycopy(args, 0, argv, 2, args.length);
        int code = Main.run(new PrintWriter(out), new PrintWriter(err), argv);
        return new String[]{Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void verdictsJsonIsAGolden() throws IOException {
        String[] r = run("verdicts", "--session", AttemptSessions.SESSION);
        assertThat(r[0]).as(r[2]).isEqualTo("0");
        Golden.check(GOLDEN.resolve("verdicts-s-attempts.json"), r[1]);
        assertThat(r[1]).contains("\"replay_validity\" : \"valid\"").contains("\"agent\" : \"agent:a@2\"");
        // latest is the session itself (the store's only measured one); an agent narrows the arms
        String[] latest = run("verdicts", "--agent", "a@2");
        assertThat(latest[1]).contains("agent:a@2").doesNotContain("agent:a@1").doesNotContain("agent:b@1");
    }

    @Test
    void harborRewardIsNumbersOnlyAndOneForABetterAgent() throws IOException {
        String[] r = run("verdicts", "--session", AttemptSessions.SESSION, "--task", "tpot", "--agent", "a@2",
                "--format", "harbor-reward");
        assertThat(r[0]).as(r[2]).isEqualTo("0");
        Golden.check(GOLDEN.resolve("reward-a@2.json"), r[1]);
        assertThat(HarborTaskChecker.checkRewardJson(r[1])).isEmpty();
        assertThat(r[1]).contains("\"reward\" : 1").contains("\"replay_valid\" : 1").contains("\"opt_human\" : 1");
        String[] a1 = run("verdicts", "--task", "tpot", "--agent", "a@1", "--format", "harbor-reward");
        assertThat(a1[1]).contains("\"opt_human\" : 0");
    }

    @Test
    void aRewardNeedsOneTaskAndOneArm() {
        String[] r = run("verdicts", "--task", "tpot", "--format", "harbor-reward");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("a reward is for one agent arm").contains("fix: --agent NAME");
        String[] t = run("verdicts", "--task", "nope");
        assertThat(t[0]).isEqualTo("2");
        assertThat(t[2]).contains("--task nope: session " + AttemptSessions.SESSION + " measured no such task");
    }
}
