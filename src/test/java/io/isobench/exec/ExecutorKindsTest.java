package io.isobench.exec;

import io.isobench.IsobenchException;
import io.isobench.exec.ExecutorKind.Capability;
import io.isobench.task.ExecutorNames;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one registry: every kind's capabilities as docs/executors.md tables them, the names the suite loader learns
 * through ServiceLoader, and the refusals phrased from the registry.
 */
class ExecutorKindsTest {

    @Test
    void everyKindDeclaresTheCapabilitiesTheDocsTable() {
        Map<String, Set<Capability>> want = new LinkedHashMap<>();
        want.put("local", EnumSet.allOf(Capability.class));
        want.put("docker", EnumSet.of(Capability.RUNS_ON_THIS_HOST, Capability.RUNS_GENERIC_OFFLINE,
                Capability.INSTALLS_ARTIFACTS, Capability.RUNS_ACCURACY));
        want.put("slurm", EnumSet.of(Capability.INSTALLS_ARTIFACTS, Capability.RUNS_ACCURACY));
        want.put("kubernetes", EnumSet.noneOf(Capability.class));
        want.put("ssh", EnumSet.of(Capability.NEEDS_LOCAL_CLONE, Capability.INSTALLS_ARTIFACTS,
                Capability.RUNS_ACCURACY));
        assertThat(Executors.KINDS).extracting(ExecutorKind::name).containsExactlyElementsOf(want.keySet());
        want.forEach((name, caps) -> {
            for (Capability c : Capability.values()) {
                assertThat(Executors.kind(name).can(c)).as(name + " " + c).isEqualTo(caps.contains(c));
            }
        });
    }

    @Test
    void theSuiteLoaderKnowsTheRegistrysNames() {
        assertThat(ExecutorNames.known()).containsExactlyElementsOf(Executors.names())
                .containsExactly("docker", "kubernetes", "local", "slurm", "ssh");
    }

    @Test
    void anUnknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> Executors.kind("nope")).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessage("--executor nope: use one of [docker, kubernetes, local, slurm, ssh]");
    }

    @Test
    void refusalsNameTheKindsThatCan() {
        assertThat(Executors.namesWith(Capability.RUNS_GENERIC_OFFLINE)).isEqualTo("local or docker");
        assertThat(Executors.namesWith(Capability.RUNS_ACCURACY)).isEqualTo("local, docker, slurm or ssh");
        assertThat(Executors.namesWith(Capability.CONFINES_ARMS)).isEqualTo("local");
    }
}
