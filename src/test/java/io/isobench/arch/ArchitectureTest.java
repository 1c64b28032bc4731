package io.isobench.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.isobench.PackageMap;
import io.isobench.parse.PlantedArrowUp;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package map (docs/architecture.md, "may import") holds on the compiled main classes, and the check catches a
 * planted arrow up ({@link io.isobench.parse.PlantedArrowUp}, a test class of {@code parse} that uses {@code session}).
 */
class ArchitectureTest {
    private static final Path DOC = Path.of("docs/architecture.md");

    @Test
    void mainClassesFollowThePackageMap() throws Exception {
        JavaClasses main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.isobench");
        assertThat(main.size()).as("main classes imported").isGreaterThan(500);
        assertThat(PackageMap.read(DOC).violations(main)).isEmpty();
    }

    @Test
    void aPlantedArrowUpIsReported() throws Exception {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedArrowUp.class);
        assertThat(PackageMap.read(DOC).violations(planted)).containsExactly(
                "io.isobench.parse.PlantedArrowUp -> io.isobench.session.Session (parse -> session)");
    }

    @Test
    void theDocTableIsRead() throws Exception {
        PackageMap map = PackageMap.read(DOC);
        assertThat(map.allowed()).containsKeys("", "guard", "parse", "store", "session", "cli");
        assertThat(map.allowed().get("cli")).isNull();
        assertThat(map.allowed().get("guard")).isEmpty();
        assertThat(map.allowed().get("task")).contains("loadgen", "parse").doesNotContain("plan");
    }
}
