package io.isobench.agent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The adapter's config files are written into a home the agent has already run in (its {@code --version} call), so
 * links it planted there must not lead isobench to write host files.
 */
class AttemptRunnerHomeFilesTest {

    @TempDir
    Path tmp;

    @Test
    void aPlantedSymlinkIsReplacedNotFollowed() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path host = Files.writeString(tmp.resolve("host-file"), "host");
        Files.createDirectories(home.resolve(".codex"));
        Files.createSymbolicLink(home.resolve(".codex/config.toml"), host);
        AttemptRunner.writeInHome(home, ".codex/config.toml", "model = 'x'\n");
        assertThat(Files.readString(host)).isEqualTo("host");
        assertThat(Files.isSymbolicLink(home.resolve(".codex/config.toml"))).isFalse();
        assertThat(Files.readString(home.resolve(".codex/config.toml"))).isEqualTo("model = 'x'\n");
    }

    @Test
    void aFolderLinkedOutOfTheHomeIsRefused() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path hostDir = Files.createDirectories(tmp.resolve("host-dir"));
        Files.createSymbolicLink(home.resolve(".claude"), hostDir);
        assertThatThrownBy(() -> AttemptRunner.writeInHome(home, ".claude/settings.json", "{}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the agent's home");
        assertThat(hostDir).isEmptyDirectory();
        assertThatThrownBy(() -> AttemptRunner.writeInHome(home, "../escape", "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
