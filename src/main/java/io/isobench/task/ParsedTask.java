package io.isobench.task;

import io.isobench.Mode;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A task with its perf_command parsed once ({@link TaskSpec#parsed}): what a plan reads of the task — mode, server,
 * the correctness gate's server, GPUs, model — all from that one parse.
 *
 * @param task    the task
 * @param command its perf_command, parsed ({@link TaskSpec#parsedCommand})
 */
public record ParsedTask(TaskSpec task, ParsedPerfCommand command) {

    public ParsedTask {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(command, "command");
    }

    /** The mode the task runs: the command's; else the declared label when it names one mode. */
    public Optional<Mode> mode() {
        Optional<Mode> fromCommand = command.modeIfKnown();
        return fromCommand.isPresent() ? fromCommand : Mode.fromLabel(task.modeLabel());
    }

    /**
     * GPUs the task's jobs need: an engine's command, what it uses or the task declares ({@link GpuEstimate}); a
     * generic task's command (not an engine's benchmark, nothing says it uses a GPU), what the task declares, else 0.
     */
    public int gpus() {
        if (task.generic() != null) {
            return task.gpus() == null ? 0 : task.gpus();
        }
        return GpuEstimate.of(command, task.gpus()).gpus();
    }

    /** The model: the command's, else the task's; null when neither names one. */
    public String model() {
        return command.model() != null ? command.model() : task.model();
    }

    /**
     * The server's words: the {@code server_command} template with {@code {model}} and {@code {server_flags}} filled
     * in and {@code {host}}, {@code {port}} as slots, else the adapter's default. Serving tasks are measured against
     * it; offline tasks start it only for the correctness gate. Empty when the command names no model or no
     * benchmark.
     */
    public List<Word> server() {
        if (task.generic() != null) {
            return GenericCommands.server(task);
        }
        if (noTemplate()) {
            return command.server();
        }
        if (command.serverArgv().isEmpty()) {
            return List.of();
        }
        return fromTemplate(command.model(), command.serverFlags());
    }

    /**
     * The server the correctness gate starts: {@link #server}, else (an offline command that names no server model)
     * the {@code server_command} template, or the engine's default server, for the task's model without server
     * flags.
     */
    public List<Word> checkServer() {
        List<Word> words = server();
        if (!words.isEmpty() || task.generic() != null) {
            return words;
        }
        String m = task.model() == null ? "model" : task.model();
        return noTemplate() ? ParsedPerfCommand.defaultServer(m, List.of()) : fromTemplate(m, List.of());
    }

    private boolean noTemplate() {
        return task.serverCommand() == null || task.serverCommand().isBlank();
    }

    /** The template's words: slots from the template as written; {@code {model}} and flags never searched for them. */
    private List<Word> fromTemplate(String serverModel, List<String> serverFlags) {
        String model = serverModel == null ? "" : serverModel;
        List<Word> out = new ArrayList<>();
        for (List<Shell.Word> seg : Shell.tokenize(task.serverCommand()).segments()) {
            for (Shell.Word w : seg) {
                if (w.text().equals("{server_flags}")) {
                    out.addAll(Word.literal(serverFlags));
                } else {
                    out.add(Word.template(w.text()).mapText(t -> t.replace("{model}", model)));
                }
            }
        }
        return List.copyOf(out);
    }
}
