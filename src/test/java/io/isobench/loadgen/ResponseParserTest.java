package io.isobench.loadgen;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResponseParserTest {

    private static long size(String line) throws IOException {
        byte[] b = ("x" + line + "\n").getBytes(StandardCharsets.ISO_8859_1);
        return ResponseParser.chunkSize(b, 1, b.length - 1);
    }

    @Test
    void hexDigitIsCharacterDigitForEveryByte() {
        for (int v = -128; v < 128; v++) {
            byte c = (byte) v;
            assertThat(ResponseParser.hexDigit(c)).as("byte %d", v).isEqualTo(Character.digit(c, 16));
        }
    }

    @Test
    void chunkSizeLines() throws IOException {
        assertThat(size("0\r")).isZero();
        assertThat(size("1a\r")).isEqualTo(26);
        assertThat(size("1A\r")).isEqualTo(26);
        assertThat(size(" fF ;name=value\r")).isEqualTo(255);
        assertThat(size("7fffffffffffffff".substring(1))).isEqualTo(0xfffffffffffffffL);
        assertThatThrownBy(() -> size("g\r")).isInstanceOf(IOException.class).hasMessageContaining("bad chunk size");
        assertThatThrownBy(() -> size("\r")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> size("1 2\r")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> size("1000000000000000\r")).isInstanceOf(IOException.class);
    }
}
