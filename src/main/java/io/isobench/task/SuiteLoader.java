package io.isobench.task;

import io.isobench.IsobenchException;
import io.isobench.review.Check;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads a suite YAML file into a {@link Suite}. Every problem is reported as {@code file:line: field: problem (fix)};
 * all problems of a file are collected and thrown together as one {@link IsobenchException.BadInput} (exit 2).
 * Unknown keys are errors that name the nearest known key.
 */
public final class SuiteLoader {

    private static final List<String> TOP_KEYS = List.of("name", "description", "engine", "tasks", "agents", "agent_prompt", "run",
            "recipes", "review", "setup");
    /** Placeholders of correctness.offline_command. */
    public static final List<String> OFFLINE_PLACEHOLDERS = List.of("{prompts_file}", "{max_tokens}", "{model}",
            "{suite_dir}");
    /** Placeholders of accuracy.command. */
    public static final List<String> ACCURACY_PLACEHOLDERS = List.of("{model}", "{suite_dir}");
    /** Patch-review check names as the suite writes them (lower case). */
    public static final List<String> CHECK_NAMES = Arrays.stream(Check.values())
            .map(c -> c.name().toLowerCase(Locale.ROOT)).toList();

    private final String fileLabel;
    private final Path baseDir;
    private final boolean checkPaths;

    private SuiteLoader(String fileLabel, Path baseDir, boolean checkPaths) {
        this.fileLabel = fileLabel;
        this.baseDir = baseDir;
        this.checkPaths = checkPaths;
    }

    /** Loads and validates a suite file; a local engine repo and every patch file must exist. */
    public static Suite load(Path file) {
        return load(file, true);
    }

    /**
     * Loads a suite; with {@code checkPaths} false a missing local engine repo or patch file is not an error (for
     * {@code tasks lint}, which may run before the clone exists). Paths are still resolved.
     */
    public static Suite load(Path file, boolean checkPaths) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": cannot read the suite (" + e.getMessage()
                    + ") (fix: give the path of a suite YAML file)", e);
        }
        Path abs = file.toAbsolutePath().normalize();
        return new SuiteLoader(file.toString(), abs.getParent(), checkPaths).read(text, abs);
    }

    /** Parses suite text as if it were the file {@code file} (relative paths resolve against its folder). */
    public static Suite parse(String yamlText, Path file) {
        Path abs = file.toAbsolutePath().normalize();
        return new SuiteLoader(file.toString(), abs.getParent(), true).read(yamlText, abs);
    }

    private Suite read(String text, Path file) {
        Node root;
        try {
            LoaderOptions opts = new LoaderOptions();
            opts.setAllowDuplicateKeys(true); // checked here, with a line number
            root = new Yaml(new SafeConstructor(opts)).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            int line = e.getProblemMark() != null ? e.getProblemMark().getLine() + 1 : 1;
            throw IsobenchException.badInput("%s:%d: yaml: %s (fix: correct the YAML syntax)", fileLabel, line,
                    e.getProblem());
        } catch (YAMLException e) {
            throw IsobenchException.badInput("%s:1: yaml: %s (fix: correct the YAML syntax)", fileLabel, e.getMessage());
        }
        if (root == null) {
            throw IsobenchException.badInput("%s:1: suite: the file is empty (fix: see docs/suite-format.md)", fileLabel);
        }
        SuiteNodes nodes = new SuiteNodes(fileLabel, baseDir, checkPaths);
        Map<String, NodeTuple> top = nodes.mapping(root, "suite", TOP_KEYS);
        if (top == null) {
            throw nodes.failure();
        }
        EngineSection engineSection = new EngineSection(nodes);
        EngineSpec engine = engineSection.engine(top.get("engine"), root);
        engineSection.engineSpec = engine;
        TaskSection taskSection = new TaskSection(engineSection);
        taskSection.suiteReview = taskSection.review(top.get("review"), "review");
        List<TaskSpec> tasks = taskSection.tasks(top.get("tasks"), root);
        Set<String> taskIds = new HashSet<>();
        tasks.forEach(t -> taskIds.add(t.id()));
        AgentSection agentSection = new AgentSection(nodes, engine);
        List<AgentSpec> agents = agentSection.agents(top.get("agents"), taskIds);
        RunConfig run = engineSection.run(top.get("run"));
        List<Recipe> recipes = agentSection.recipes(top.get("recipes"), taskIds, agents);
        List<List<String>> setup = engineSection.setup(top.get("setup"));
        AgentPrompt prompt = new AgentRunnerSection(nodes).prompt(top.get("agent_prompt"));
        if (nodes.hasProblems()) {
            throw nodes.failure();
        }
        return new Suite(file, engine, tasks, agents, run, recipes, setup, prompt);
    }
}
