package io.isobench.task;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ShellTest {

    static List<String> words(String text) {
        Shell.Result r = Shell.tokenize(text);
        assertThat(r.segments()).hasSizeLessThanOrEqualTo(1);
        return r.segments().isEmpty() ? List.of() : r.segments().get(0).stream().map(Shell.Word::text).toList();
    }

    /** POSIX single-quoting: 'it'\''s'. */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    @Provide
    Arbitrary<List<String>> argLists() {
        return Arbitraries.strings().withChars("abcXYZ019 -_=/.'\"\\$;&|<>(){}[]*?~`\t").ofMaxLength(12)
                .list().ofMaxSize(6);
    }

    @Property(tries = 300)
    void singleQuotedArgumentsRoundTripExactly(@ForAll("argLists") List<String> args) {
        String line = String.join(" ", args.stream().map(ShellTest::quote).toList());
        Shell.Result r = Shell.tokenize(line);
        assertThat(r.operators()).isEmpty();
        assertThat(r.expansions()).isEmpty();
        assertThat(r.error()).isNull();
        assertThat(words(line)).isEqualTo(args);
    }

    @Test
    void quotesEscapesAndOperators() {
        assertThat(words("a \"b c\" d\\ e 'f\"g'")).containsExactly("a", "b c", "d e", "f\"g");
        assertThat(words("x \"a\\\"b\\\\c\\$d\"")).containsExactly("x", "a\"b\\c$d");
        assertThat(words("line \\\n continued")).containsExactly("line", "continued");
        Shell.Result chain = Shell.tokenize("cd x && python a.py; echo done | tee log 2>&1");
        assertThat(chain.operators()).contains("&&", ";", "|");
        assertThat(chain.segments()).hasSize(4);
        assertThat(Shell.tokenize("echo $HOME ${X} $(date) `id`").expansions())
                .containsExactly("$HOME", "${X}", "$(date)", "`id`");
        assertThat(Shell.tokenize("echo 'open").error()).contains("unterminated single quote");
        assertThat(words("--model <model>")).containsExactly("--model", "<model>");
    }
}
