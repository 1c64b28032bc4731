package io.isobench;

/**
 * How the integration tests share the machine: failsafe runs two test classes at a time in one JVM (pom.xml,
 * {@code itThreads}; at most three while a thread waits to join another's class; the methods of a class stay in order
 * on one thread). The rules, from an audit of what each {@code *IT} touches:
 * <ul>
 *   <li>A class whose assertions come from measured times (verdicts, capacities, speed-ups, stopping looks, CPU
 *       clocks) is {@code @Isolated}: nothing runs beside it, so a second test's load never moves its numbers —
 *       DemoIT and HtmlReportBrowserIT (the demo session they share), SweepDemoIT, PilotSessionIT, SweepPilotIT,
 *       Llama2cExampleIT, AdaptiveSessionIT, AgentsSandboxE2EIT, CpuClockIT, and NodeLlamaCppArtifactIT (how many of
 *       its rounds count hangs on the load generator's own timing check: a CI run beside another IT saw three of
 *       five rounds of one arm excluded as client_saturated). Not isolated, though measured: a class
 *       whose timing assertions are far inside the designed effect (DockerDemoIT: the human commit more than 10 %
 *       faster where the toy engine's fixes are several times that; HarborVerifierIT: the oracle's reward needs the
 *       human commit `better`, and topp-filter's fix is about 3 × faster) or that asserts no timing at all (the demos on
 *       Slurm: counts, outcomes).</li>
 *   <li>{@link #SLURM}: the one Slurm node of scripts/provision-slurm (2 CPUs, 2 fake GPUs) — jobs of two tests would
 *       queue behind each other, and the tests wait for their job to be RUNNING and read the queue.</li>
 *   <li>{@link #SANDBOX}: the agents' sandboxes — their containers carry this JVM's pid as a label and their env files
 *       lie in {@code java.io.tmpdir}; the tests count both, so two of them in one JVM would see each other's.</li>
 *   <li>{@link #DOCKER_EXECUTOR}: the docker executor's env files ({@code java.io.tmpdir/isobench-docker-*}/env, alive
 *       until their container starts): DockerExecutorContractIT asserts none is left, and sees any other test's
 *       docker job starting (found running DockerDemoIT beside it).</li>
 *   <li>Everything else runs beside any other non-isolated class: each test has its own {@code @TempDir}, store,
 *       session ids and working folders; servers listen on free ephemeral loopback ports; Docker containers are
 *       named per session and found by their job folder (exec.DockerLeftovers); files under {@code target/} are one
 *       folder per test class (screenshots, transcripts).</li>
 * </ul>
 * A new integration test that shares something else with another one takes a lock here (one constant and its reason).
 * ItLocksTest holds every {@code *IT} to the locks of what its source names (Slurm, the agents' docker sandbox, the
 * docker executor, the shared demo session).
 * <p>
 * The unit tests (surefire, pom.xml {@code unitThreads}) run two classes at a time in one JVM as well. There a class is
 * {@code @Isolated} when it
 * <ul>
 *   <li>sets JVM-wide state that others read: a system property (user.home: KubernetesConfigTest, HfCacheTest; the
 *       load generator's transport: PollerTest);</li>
 *   <li>reads what the whole JVM or machine holds: this JVM's open descriptors (EgressProxyCapsTest), every process of
 *       the machine or the temporary folder's leftovers (SandboxTest, AttemptRunnerTest, GenericRunTest);</li>
 *   <li>asserts measured times, CPU or lags (LoadgenAccuracyTest, TimedTraceRunTest under {@code
 *       -Disobench.timing=true}, LibcTest, LoopLagTest, GenericRunTest, ParserRobustnessTest, ReadinessHostileTest,
 *       LeaderboardTest, RecipesBuildTest). Bounds far from what the work takes (a job that must end within 30 s of
 *       its 3 s limit) are not measurements and run beside others.</li>
 * </ul>
 * ItLocksTest finds a unit test that sets a property, lists every process or this JVM's descriptors, reads its thread or
 * memory beans, or asserts under {@code -Disobench.timing=true} without running alone; the rest is kept by review.
 */
public final class ItLocks {

    /** The single-node Slurm cluster. */
    public static final String SLURM = "isobench.slurm-node";

    /** The agents' sandbox containers (labelled with this JVM's pid) and their env files in java.io.tmpdir. */
    public static final String SANDBOX = "isobench.agent-sandbox";

    /** The docker executor's env files in java.io.tmpdir (every docker job's, until its container starts). */
    public static final String DOCKER_EXECUTOR = "isobench.docker-executor-env-files";

    private ItLocks() {
    }
}
