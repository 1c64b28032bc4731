package io.isobench.exec;

import io.isobench.IsobenchException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The docker executor without a docker daemon: what is missing is said in one line, with the fix. */
class DockerExecutorTest {

    @TempDir
    Path dir;

    @Test
    void missingDockerCliIsOneLineNamingTheFix() {
        DockerConfig c = DockerConfig.fromMap(Map.of("docker", dir.resolve("no-docker").toString()));
        assertThatThrownBy(() -> Executors.docker(c)).isInstanceOf(IsobenchException.EnvironmentMissing.class)
                .hasMessageContaining("is not installed").hasMessageContaining("scripts/provision-docker")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void daemonNotRunningIsOneLineNamingTheFix() throws Exception {
        Path fake = dir.resolve("docker");
        Files.writeString(fake, "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                + "Is the docker daemon running?' >&2\nexit 1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        DockerConfig c = DockerConfig.fromMap(Map.of("docker", fake.toString()));
        assertThatThrownBy(() -> Executors.docker(c)).isInstanceOf(IsobenchException.EnvironmentMissing.class)
                .hasMessageContaining("the docker daemon is not running (Cannot connect to the Docker daemon")
                .hasMessageContaining("start it (dockerd")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void profileFileIsReadAndBadOnesNameTheFile() throws Exception {
        Path p = dir.resolve("docker.yaml");
        Files.writeString(p, "images: {baseline: 'r/v:{commit}', human: 'r/v:{commit}'}\nnetwork: none\nshm_size: 1g\n");
        DockerConfig c = DockerConfig.load(p);
        assertThat(c.network()).isEqualTo("none");
        assertThat(c.shmSize()).isEqualTo("1g");
        assertThat(c.image("t", "agent:x", "ABC")).isEqualTo("r/v:abc");
        Files.writeString(p, "imagez: x\n");
        assertThatThrownBy(() -> DockerConfig.load(p)).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(p.toString()).hasMessageContaining("imagez: unknown key");
    }
}
