package io.isobench.export;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HfSchemaTest {

    /** (name, dtype) of each feature in the seed card's YAML header; lists as {@code list<string>}. */
    static List<String[]> cardFeatures() throws Exception {
        List<String> lines = Files.readAllLines(SharedData.require("seeds/hf-dataset-card.md"));
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("  - name: ") && i + 1 < lines.size() && lines.get(i + 1).startsWith("    ")) {
                String next = lines.get(i + 1).trim();
                String type = next.startsWith("dtype: ") ? next.substring(7) : next.startsWith("list: ") ? "list<" + next.substring(6) + ">" : null;
                if (type != null) {
                    out.add(new String[] {l.substring(10).trim(), type});
                }
            }
        }
        return out;
    }

    @Test
    void the76ColumnsMatchTheSeedCardInNameOrderAndType() throws Exception {
        List<String[]> card = cardFeatures();
        assertThat(card).hasSize(76);
        assertThat(HfSchema.V5).hasSize(76);
        for (int i = 0; i < 76; i++) {
            assertThat(HfSchema.V5.get(i).name()).as("column %d", i).isEqualTo(card.get(i)[0]);
            assertThat(HfSchema.V5.get(i).type().label()).as(card.get(i)[0]).isEqualTo(card.get(i)[1]);
        }
    }

    @Test
    void additiveColumnsFollowWithTheIsobenchPrefixAndUniqueNames() {
        assertThat(HfSchema.EXPORT.subList(0, 76)).isEqualTo(HfSchema.V5);
        assertThat(HfSchema.ISOBENCH).allMatch(c -> c.name().startsWith("isobench_"));
        assertThat(new HashSet<>(HfSchema.EXPORT.stream().map(HfSchema.Column::name).toList())).hasSize(HfSchema.EXPORT.size());
        assertThat(HfSchema.ISOBENCH.stream().map(HfSchema.Column::name).toList()).contains(
                "isobench_agent", "isobench_agent_model", "isobench_mode", "isobench_pipeline", "isobench_comparability",
                "isobench_status_baseline", "isobench_status_human", "isobench_status_agent", "isobench_failure_agent",
                "isobench_n_rounds", "isobench_noise_floor_pct", "isobench_agent_ci_low", "isobench_agent_verdict",
                "isobench_data_source");
    }
}
