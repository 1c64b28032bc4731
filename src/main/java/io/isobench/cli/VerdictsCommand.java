package io.isobench.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.IsobenchException;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.harbor.SessionVerdicts;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "verdicts", mixinStandardHelpOptions = true,
        description = {"Print a session's verdicts as JSON (docs/harbor.md, \"Verdicts as JSON\"): per task the"
                + " replay validity, human vs baseline, the A/A arm; per agent arm its verdicts, speedups and"
                + " intervals, opt_base/opt_human, correctness and outcomes.",
                "--format harbor-reward: the flat numbers a Harbor verifier writes as reward.json (one task, one"
                        + " agent arm)."})
final class VerdictsCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { json, harbor_reward }

    @Spec
    CommandSpec spec;

    @Option(names = "--session", paramLabel = "ID", defaultValue = "latest",
            description = "The session (default: the latest measured session of the store).")
    String session;

    @Option(names = "--task", paramLabel = "ID", description = "Only this task.")
    String task;

    @Option(names = "--agent", paramLabel = "NAME", description = "Only this agent arm (NAME or NAME@k).")
    String agent;

    @Option(names = "--format", paramLabel = "json|harbor-reward", defaultValue = "json",
            converter = FormatConverter.class, description = "json (default) or harbor-reward.")
    Format format;

    /** Reads harbor-reward as well as harbor_reward. */
    static final class FormatConverter implements ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            return Format.valueOf(value.replace('-', '_'));
        }
    }

    @Override
    public Integer call() throws JsonProcessingException {
        Main main = (Main) spec.root().userObject();
        try (Store store = Stores.open(main.existingDbSpec())) {
            String id = session.equals("latest") ? latest(store) : session;
            if (store.session(id).isEmpty()) {
                throw new IsobenchException.BadInput("--session " + id + ": no such session in " + store.describe()
                        + " (fix: isobench report lists the sessions)");
            }
            SessionAnalysis a = SessionAnalysis.of(store, id, StatsConfig.defaults());
            Object data = format == Format.json ? SessionVerdicts.of(a, task, agent)
                    : SessionVerdicts.reward(a, task, agent);
            main.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(data));
        }
        return Main.OK;
    }

    /** The latest session that is not an agents run (sessions sort by their start). */
    private static String latest(Store store) {
        List<SessionRecord> all = store.sessions();
        for (int i = all.size() - 1; i >= 0; i--) {
            if (!all.get(i).isAgentsRun()) {
                return all.get(i).sessionId();
            }
        }
        throw new IsobenchException.BadInput("--session latest: " + store.describe() + " holds no measured session"
                + " (fix: isobench run SUITE first)");
    }
}
