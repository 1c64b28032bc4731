package io.isobench.harbor;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TomlTest {

    @Test
    void readsTheSubsetHarborTasksUse() {
        Map<String, Object> d = Toml.parse("""
                # comment
                schema_version = "1.4"
                artifacts = [{ source = "/app/repo", exclude = [".git"] }, "/tmp/x"]
                [task]
                name = 'org/name'  # trailing comment
                keywords = [
                  "a",
                  "b",   # a comment inside
                ]
                "quoted key" = "tab\\there \\u00e9"
                [environment]
                cpus = 1_000
                mask = 0x1F
                timeout = 1.5e2
                big = +inf
                ok = true
                env.A = "x"
                [verifier.environment]
                gpus = 0
                [[steps]]
                name = "one"
                [[steps]]
                name = "two"
                text = \"\"\"
                line one
                line two\"\"\"
                """);
        assertThat(d.get("schema_version")).isEqualTo("1.4");
        assertThat((List<?>) d.get("artifacts")).hasSize(2);
        assertThat(((Map<?, ?>) ((List<?>) d.get("artifacts")).getFirst()).get("exclude")).isEqualTo(List.of(".git"));
        Map<?, ?> task = (Map<?, ?>) d.get("task");
        assertThat(task.get("name")).isEqualTo("org/name");
        assertThat(task.get("keywords")).isEqualTo(List.of("a", "b"));
        assertThat(task.get("quoted key")).isEqualTo("tab\there é");
        Map<?, ?> env = (Map<?, ?>) d.get("environment");
        assertThat(env.get("cpus")).isEqualTo(1000L);
        assertThat(env.get("mask")).isEqualTo(31L);
        assertThat(env.get("timeout")).isEqualTo(150.0);
        assertThat(env.get("big")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(env.get("ok")).isEqualTo(true);
        assertThat(env.get("env")).isEqualTo(Map.of("A", "x"));
        assertThat(((Map<?, ?>) ((Map<?, ?>) d.get("verifier")).get("environment")).get("gpus")).isEqualTo(0L);
        List<?> steps = (List<?>) d.get("steps");
        assertThat(steps).hasSize(2);
        assertThat(((Map<?, ?>) steps.get(1)).get("text")).isEqualTo("line one\nline two");
    }

    @Test
    void refusesWhatTomlForbidsNamingTheLine() {
        assertThatThrownBy(() -> Toml.parse("a = 1\na = 2\n")).hasMessage("line 2: duplicate key a");
        assertThatThrownBy(() -> Toml.parse("[t]\nx = 1\n[t]\ny = 2\n")).hasMessageContaining("line 3: table [t] is"
                + " defined twice");
        assertThatThrownBy(() -> Toml.parse("x = \"open\n")).hasMessageContaining("line 1: string not closed");
        assertThatThrownBy(() -> Toml.parse("x = 1 2\n")).hasMessageContaining("line 1: end of line expected");
        assertThatThrownBy(() -> Toml.parse("x = 1979-05-27\n")).hasMessageContaining("does not read dates");
        assertThatThrownBy(() -> Toml.parse("x = nope\n")).hasMessageContaining("is not TOML");
        assertThatThrownBy(() -> Toml.parse("x = 1__0\n")).hasMessageContaining("underscores");
        assertThatThrownBy(() -> Toml.parse("x = [1, 2\n")).hasMessageContaining("array not closed");
    }

    @Test
    void quoteRoundTrips() {
        String v = "a \"b\" \\ c\nd\te\u0001";
        assertThat(Toml.parse("k = " + Toml.quote(v) + "\n").get("k")).isEqualTo(v);
    }
}
