package io.isobench.task;

import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.guard.AtomicFile;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rewrites a suite file's {@code agents:} entries named {@code NAME@k} (what {@code isobench agents export-suite}
 * writes; docs/agents.md): every earlier {@code NAME@…} entry is replaced by one entry per attempt with its patches. The rest
 * of the file (other agents, tasks, comments) is kept; the file is written atomically and must load afterwards.
 */
public final class SuiteAgentsEdit {

    private SuiteAgentsEdit() {
    }

    /**
     * @param suiteFile the suite
     * @param agent     the agent the attempts came from
     * @param model     its model (copied to each attempt), or null
     * @param attempts  attempt k → (task id → patch path relative to the suite's folder), k = 1..K in order
     */
    public static void replaceAttempts(Path suiteFile, String agent, String model,
                                       Map<Integer, Map<String, String>> attempts) throws IOException {
        LoaderOptions lo = new LoaderOptions();
        lo.setProcessComments(true);
        DumperOptions dopt = new DumperOptions();
        dopt.setProcessComments(true);
        dopt.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        dopt.setIndent(2);
        dopt.setIndicatorIndent(2);
        dopt.setIndentWithIndicator(true);
        dopt.setWidth(4096);
        Yaml yaml = new Yaml(new org.yaml.snakeyaml.constructor.SafeConstructor(lo),
                new org.yaml.snakeyaml.representer.Representer(dopt), dopt, lo);
        String text = Files.readString(suiteFile);
        Node root = yaml.compose(new StringReader(text));
        if (!(root instanceof MappingNode top)) {
            throw new IsobenchException.BadInput(suiteFile + ": not a suite (a YAML mapping) (fix: docs/suite-format.md)");
        }
        SequenceNode agents = null;
        for (NodeTuple t : top.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("agents")
                    && t.getValueNode() instanceof SequenceNode s) {
                agents = s;
            }
        }
        if (agents == null) {
            agents = new SequenceNode(Tag.SEQ, new ArrayList<>(), DumperOptions.FlowStyle.BLOCK);
            List<NodeTuple> v = new ArrayList<>(top.getValue());
            v.removeIf(t -> t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("agents"));
            v.add(new NodeTuple(scalar("agents"), agents));
            top.setValue(v);
        }
        String base = Arm.normalizeAgent(agent);
        List<Node> kept = new ArrayList<>();
        for (Node n : agents.getValue()) {
            if (!(n instanceof MappingNode m && isAttemptOf(nameOf(m), base))) {
                kept.add(n);
            }
        }
        for (Map.Entry<Integer, Map<String, String>> a : attempts.entrySet()) {
            List<NodeTuple> entry = new ArrayList<>();
            entry.add(new NodeTuple(scalar("name"), scalar(agent + "@" + a.getKey())));
            if (model != null) {
                entry.add(new NodeTuple(scalar("model"), scalar(model)));
            }
            List<NodeTuple> patches = new ArrayList<>();
            a.getValue().forEach((task, path) -> patches.add(new NodeTuple(scalar(task), scalar(path))));
            entry.add(new NodeTuple(scalar("patches"), new MappingNode(Tag.MAP, patches,
                    DumperOptions.FlowStyle.BLOCK)));
            kept.add(new MappingNode(Tag.MAP, entry, DumperOptions.FlowStyle.BLOCK));
        }
        agents.getValue().clear();
        agents.getValue().addAll(kept);
        agents.setFlowStyle(DumperOptions.FlowStyle.BLOCK);
        StringWriter w = new StringWriter();
        yaml.serialize(root, w);
        String out = w.toString();
        Path tmp = Files.createTempFile(suiteFile.toAbsolutePath().getParent(), ".suite-", ".yaml");
        try {
            Files.writeString(tmp, out);
            SuiteLoader.load(tmp, false);
        } catch (IsobenchException e) {
            throw new IsobenchException.BadInput(suiteFile + ": the rewritten suite does not load (" + e.getMessage()
                    + "); the file was left unchanged (fix: report this with the suite)", e);
        } finally {
            Files.deleteIfExists(tmp);
        }
        AtomicFile.write(suiteFile, out.getBytes(StandardCharsets.UTF_8));
    }

    /** True when {@code name} is an attempt {@code NAME@k} of agent {@code base} (normalised). */
    private static boolean isAttemptOf(String name, String base) {
        if (name == null || name.isBlank()) {
            return false;
        }
        Arm arm = Arm.agent(name);
        return arm.isAttempt() && arm.agentBase().equals(base);
    }

    private static String nameOf(MappingNode m) {
        for (NodeTuple t : m.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("name")
                    && t.getValueNode() instanceof ScalarNode v) {
                return v.getValue();
            }
        }
        return null;
    }

    private static ScalarNode scalar(String s) {
        return new ScalarNode(Tag.STR, s, null, null, DumperOptions.ScalarStyle.PLAIN);
    }
}
