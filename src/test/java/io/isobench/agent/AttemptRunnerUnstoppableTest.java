package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.ToyRepo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An attempt whose sandbox cannot prove it stopped after isobench's kill (docker: {@code docker inspect} still shows
 * the container running after every try) is recorded as {@link AttemptStatus#SANDBOX_UNSTOPPABLE}, not as an
 * ordinary timeout: a real local process, in a sandbox that says its kill could not be verified.
 */
class AttemptRunnerUnstoppableTest {

    /** The local sandbox, except that every kill it is asked for is reported unverified. */
    private static final class Unverified implements AgentSandbox {
        private final LocalSandbox local = new LocalSandbox("python3", null);
        private volatile boolean killed;

        @Override
        public String name() {
            return "unverified";
        }

        @Override
        public SandboxView view(AttemptDirs dirs) {
            return local.view(dirs);
        }

        @Override
        public Process start(AttemptDirs dirs, Invocation inv, Map<String, String> secrets) throws IOException {
            return local.start(dirs, inv, secrets);
        }

        @Override
        public void kill(Process process) {
            killed = true;
            local.kill(process);
        }

        @Override
        public boolean unstoppable(Process process) {
            return killed;
        }

        @Override
        public void reap(AttemptDirs dirs) {
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aKillThatCannotBeVerifiedIsItsOwnStatus(@TempDir Path root) throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        Path engine = root.resolve("engine");
        ToyRepo.build(engine);
        AttemptDirs dirs = AttemptDirs.under(root.resolve("attempt"));
        SealedRepo sealed = SealedRepo.create(engine, "baseline", dirs);
        Path agent = root.resolve("agent.py");
        Files.writeString(agent, "import time\nprint('working', flush=True)\ntime.sleep(300)\n");
        AgentConfig config = new AgentConfig("command", null, List.of("python3", agent.toString()), null, null,
                List.of(), Map.of(), new Budget(2.0, null, null, null), Map.of());
        AttemptResult r = AtifStores.valid(new AttemptRunner(new CommandAdapter(), config, new Unverified(), Map.of())
                .run(dirs, sealed, "x"));
        assertThat(r.status()).isEqualTo(AttemptStatus.SANDBOX_UNSTOPPABLE);
        assertThat(r.detail()).startsWith("wall time ran out").contains("could not be proven stopped");
    }
}
