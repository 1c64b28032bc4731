package io.isobench.exec;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 2: sbatch exports the submitter's whole environment to the job by default, so isobench submits with
 * the measured processes' allowlist plus Slurm's own client settings: no secret of its environment reaches a job.
 */
class SlurmSubmitEnvTest {

    @Test
    void aJobGetsTheAllowlistAndSlurmsSettingsNeverASecret() {
        Map<String, String> env = SlurmCli.submitEnv(Map.of("PATH", "/usr/bin:/bin", "HF_TOKEN", "hf_abcdef123456",
                "ANTHROPIC_API_KEY", "sk-ant-xyz", "SLURM_CONF", "/etc/slurm/slurm.conf", "SBATCH_PARTITION", "gpu",
                "SLURM_AUTH_TOKEN", "secret-looking", "CORP_UNRELATED", "x", "LANG", "C.UTF-8"));
        assertThat(env).containsOnlyKeys("PATH", "SLURM_CONF", "SBATCH_PARTITION", "LANG");
    }
}
