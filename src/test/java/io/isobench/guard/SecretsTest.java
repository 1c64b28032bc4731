package io.isobench.guard;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SecretsTest {

    static final String HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567";
    static final String SK = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe";
    static final String GH = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

    /** Every shape of the issue (and a few more) is hidden wherever it stands. */
    @Test
    void decimalNumbersAssignedToTokenNamesAreNotSecretsButLongValuesAre() {
        // engine code in an agent's patch: redacting these would corrupt the patch
        assertThat(Secrets.redact("TOKEN_COST_S = 0.0002")).isEqualTo("TOKEN_COST_S = 0.0002");
        assertThat(Secrets.redact("MAX_TOKEN_RATE=1.5e-3")).isEqualTo("MAX_TOKEN_RATE=1.5e-3");
        assertThat(Secrets.redact("HF_TOKEN=abc123def456ghi789")).isEqualTo("HF_TOKEN=***");
        assertThat(Secrets.redact("API_KEY=0.5abcdef")).isEqualTo("API_KEY=***");
        assertThat(Secrets.redact("password=0.25")).isEqualTo("password=***");
    }

    @Test
    void everyShapeIsHidden() {
        List<String> planted = List.of(
                "HF_TOKEN=" + HF + " python3 benchmarks/benchmark_serving.py",
                "python -m vllm.entrypoints.openai.api_server --api-key " + SK + " --port 8000",
                "[\"--api-key\",\"" + SK + "\"]",
                "--hf-token=" + HF,
                "{\"error\": \"401 Client Error for url with token " + HF + "\"}",
                "\u001b[31m" + HF + "\u001b[0m",
                "\u001b[1;31m" + SK + "\u001b[0m failed",
                "token" + HF,
                "apikey" + SK,
                "\\u001b[31m" + HF + "\\u001b[0m",
                "\\u0068\\u0066\\u005f" + HF.substring(3),
                "{\"argv\": \"print('\\\\u0068\\\\u0066\\\\u005f" + HF.substring(3) + "')\"}",
                "{\"env\": \"{\\\"HF_TOKEN\\\": \\\"" + "s3cr3t-value-123" + "\\\"}\"}",
                "Authorization: Bearer abc.def.ghi-jkl",
                "{\"Authorization\": \"Bearer abc.def.ghi-jkl\"}",
                "curl -H 'authorization: token abcdefghijkl'",
                "jdbc:postgresql://h/db?user=u&password=s3cr3t-value-123&ssl=true",
                "https://user:s3cr3t-value-123@example.com/repo.git",
                "OPENAI_API_KEY: s3cr3t-value-123",
                "api_key=s3cr3t-value-123",
                GH,
                "AKIAABCDEFGHIJKLMNOP",
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEabcdefs3cr3t-value-123\n-----END RSA PRIVATE KEY-----");
        for (String p : planted) {
            String r = Secrets.redact(p);
            assertThat(r).as(p).doesNotContain(HF.substring(3)).doesNotContain(SK.substring(8))
                    .doesNotContain("s3cr3t-value-123").doesNotContain("abc.def.ghi-jkl").doesNotContain("abcdefghijkl")
                    .doesNotContain(GH.substring(4)).doesNotContain("ABCDEFGHIJKLMNOP").contains("***");
            assertThat(Secrets.redact(r)).as("idempotent: " + r).isEqualTo(r);
        }
        assertThat(Secrets.redact("token=" + HF + " used")).isEqualTo("token=*** used");
        assertThat(Secrets.redact("a " + HF + " b")).isEqualTo("a hf_*** b");
        assertThat(Secrets.redact("\u001b[31m" + HF + "\u001b[0m")).isEqualTo("\u001b[31mhf_***\u001b[0m");
    }

    /**
     * Shapes the first test did not list: a flag's letters-only value after a blank, quoted values with blanks,
     * snake_case flags, percent-encoded and JSON-escaped-slash text, numeric passwords.
     */
    @Test
    void unseenShapesAreHidden() {
        Map<String, String> planted = new LinkedHashMap<>();
        planted.put("serve --api-key correcthorsebatterystaple --port 1", "correcthorsebatterystaple");
        planted.put("serve --password Tr0ub4dor&3", "Tr0ub4dor");
        planted.put("login --token abcdefgh12345678", "abcdefgh12345678");
        planted.put("[\"--secret\", \"abcdefgh12345678\"]", "abcdefgh12345678");
        planted.put("serve --api-key 'my long pass phrase' --port 1", "pass phrase");
        planted.put("serve --api-key \"my long pass phrase\" --port 1", "pass phrase");
        planted.put("OPENAI_API_KEY='my long pass phrase' python3 x.py", "pass phrase");
        planted.put("python3 x.py --hf_token abcdefghijklmnopqrst", "abcdefghijklmnopqrst");
        planted.put("[\"--api_key\", \"abcdefghijklmnopqrst\"]", "abcdefghijklmnopqrst");
        planted.put("GET /v1/models?access_token%3Dabcdefghijklmnopqrst HTTP/1.1", "abcdefghijklmnopqrst");
        planted.put("GET /x?t=hf%5F" + HF.substring(3), HF.substring(3));
        planted.put("{\"url\": \"https:\\/\\/bot:s3cr3t-value-123@example.com\\/x\"}", "s3cr3t-value-123");
        planted.put("mysql -h db password=123456 user=root", "123456");
        planted.forEach((p, secret) -> {
            String r = Secrets.redact(p);
            assertThat(r).as(p).doesNotContain(secret).contains("***");
            assertThat(Secrets.redact(r)).as("idempotent: " + r).isEqualTo(r);
        });
        assertThat(Secrets.redact("serve --api-key 'my long pass phrase' --port 1"))
                .isEqualTo("serve --api-key '***' --port 1");
        assertThat(Secrets.argv(List.of("serve", "--hf_token", "abcdefgh", "--api_key=abcdefgh")))
                .containsExactly("serve", "--hf_token", "***", "--api_key=***");
        assertThat(List.of("DB_PASS", "HF_AUTH", "GH_PAT", "smtp_pass")).allMatch(Secrets::isSecretName);
        assertThat(List.of("PATH", "PWD", "AUTHOR", "PASSES", "PATCH_DIR")).noneMatch(Secrets::isSecretName);
        assertThat(Secrets.env(Map.of("GH_PAT", "abc"))).containsExactly(Map.entry("GH_PAT", "***"));
    }

    /** Ids, counts and settings that merely resemble a secret stay as they are (the store keys on some of them). */
    @Test
    void lookalikesStay() {
        List<String> clean = List.of(
                "run s1/my-task-with-a-long-name-here/baseline/r0",
                "task-baseline-round-0001-of-the-session",
                "--max-tokens 32 --tokenizer /models/tok.json --api-key-env OPENAI_API_KEY",
                "{\"max_tokens\": 32, \"token_ids\": [1, 2, 3], \"tokenizer\": \"gpt2\", \"use_auth_token\": true}",
                "TOKENIZERS_PARALLELISM=false MAX_NUM_BATCHED_TOKENS=8192",
                "cache_key=prompt_hash hf_hub_download(repo_id)",
                "{\"HF_TOKEN\": null, \"API_KEY\": 12}",
                "---------------Inter-token Latency----------------",
                "-----Time per Output Token (excl. 1st token)------",
                "Total generated tokens:                  1024      ",
                "usage: x.py [--metadata [KEY=VALUE ...]] [--api-key API_KEY] [--hf-token HF_TOKEN]",
                "Output tokens from server usage:         8/8       ",
                "usage: x.py [--hf_token HF_TOKEN] [--api_key API_KEY] --token-budget 100%",
                "      --header=KEY=VALUE... Extra HTTP headers. [--goodput=KEY:MS...]...",
                "GET /v1/models?q=a%20b&n=100%25 https:\\/\\/example.com\\/x",
                "no secrets here at all");
        for (String c : clean) {
            assertThat(Secrets.redact(c)).as(c).isSameAs(c);
        }
    }

    @Test
    void envArgvAndBytes() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HF_TOKEN", "anything");
        env.put("MY_PASSWORD", "hunter2");
        env.put("AWS_SECRET_ACCESS_KEY", "x");
        env.put("TOKENIZERS_PARALLELISM", "false");
        env.put("NOTE", "uses " + HF);
        assertThat(Secrets.env(env)).containsExactly(Map.entry("HF_TOKEN", "***"), Map.entry("MY_PASSWORD", "***"),
                Map.entry("AWS_SECRET_ACCESS_KEY", "***"), Map.entry("TOKENIZERS_PARALLELISM", "false"),
                Map.entry("NOTE", "uses hf_***"));
        assertThat(Secrets.argv(List.of("serve", "--api-key", "plainvalue", "--token=abc", "DB_PASSWORD=x",
                "--header", "Authorization=Bearer abcdefghij", "--max-tokens", "32")))
                .containsExactly("serve", "--api-key", "***", "--token=***", "DB_PASSWORD=***", "--header",
                        "Authorization=Bearer ***", "--max-tokens", "32");
        byte[] text = ("log " + HF + "\n").getBytes(StandardCharsets.UTF_8);
        assertThat(new String(Secrets.redact(text), StandardCharsets.UTF_8)).isEqualTo("log hf_***\n");
        byte[] binary = ("\u00ff\u00fe bin " + HF + " \u0000").getBytes(StandardCharsets.ISO_8859_1);
        byte[] r = Secrets.redact(binary);
        assertThat(r).hasSameSizeAs(binary);
        assertThat(new String(r, StandardCharsets.ISO_8859_1)).contains("hf_*****").doesNotContain(HF.substring(3));
        byte[] clean = "nothing to see here".getBytes(StandardCharsets.UTF_8);
        assertThat(Secrets.redact(clean)).isSameAs(clean);
    }

    @Test
    void terminalControlsAreWrittenOut() {
        assertThat(Terminal.safe("plain\ttext\r\n")).isEqualTo("plain\ttext\r\n");
        assertThat(Terminal.safe("a\u001b[2Jb\u001b]0;pwned\u0007c\u009bd\u202ee"))
                .isEqualTo("a\\u001b[2Jb\\u001b]0;pwned\\u0007c\\u009bd\\u202ee");
    }

    @Test
    void safeWriterRedactsAndEscapesWholeCalls() throws Exception {
        StringWriter sink = new StringWriter();
        PrintWriter w = new PrintWriter(new SafeWriter(sink), true);
        w.print("Authorization: Bearer ");
        w.println("abcdefghijkl\u001b[2J");
        w.print("\rprogress");
        w.flush();
        assertThat(sink.toString()).isEqualTo("Authorization: Bearer ***\\u001b[2J" + System.lineSeparator() + "\rprogress");
    }

    /**
     * A line longer than SafeWriter holds (1 MiB) is written in parts: the part boundary must not fall between a
     * secret's name and its value, nor inside a value, or each part alone would hold no recognisable secret.
     */
    @Test
    void safeWriterNeverCutsASecretFromItsName() throws Exception {
        String value = "correcthorsebatterystaple";
        for (String secret : List.of(" --api-key " + value + " ", " \"api_key\": \"" + value + "\", ",
                ",\"api_key\":\"" + value + "\",", "x" + HF)) {
            StringWriter sink = new StringWriter();
            try (SafeWriter w = new SafeWriter(sink)) {
                for (int tail = 4060; tail <= 4130; tail += 5) {
                    w.write("a".repeat(3 << 19) + secret + "b".repeat(tail)); // one huge line, not yet ended
                    w.write("\n");
                }
            }
            assertThat(sink.toString()).as(secret).doesNotContain(value).doesNotContain(HF.substring(3))
                    .contains("***");
        }
    }
}
