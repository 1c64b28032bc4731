package io.isobench.task;

import io.isobench.Mode;

import java.util.List;

/** A generic task's declared command in the shapes the rest of isobench reads (lint, plans, GPU estimates). */
final class GenericCommands {

    private GenericCommands() {
    }

    /**
     * The declared command as a parsed perf_command: the offline argv (mode {@code throughput}, or the task's
     * {@code latency} label) or the server argv (mode {@code serving}, the load generator's flags as client), no
     * findings (the suite loader reported every problem), one GPU at most by default.
     */
    static ParsedPerfCommand parsed(TaskSpec t) {
        GenericTask g = t.generic();
        Mode mode = g.serving() != null ? Mode.SERVING
                : Mode.fromLabel(t.modeLabel()).filter(m -> m == Mode.LATENCY).orElse(Mode.THROUGHPUT);
        String model = g.serving() != null && g.serving().model() != null ? g.serving().model() : t.model();
        return ParsedPerfCommand.declared(g.display(), g.argv(), mode, model,
                g.serving() != null ? g.serving().clientConfig() : null);
    }

    /**
     * The server's words: {@code {host}} and {@code {port}} as slots, {@code {model}} filled in ({@code {workdir}} is
     * the planner's); empty for an offline task.
     */
    static List<Word> server(TaskSpec t) {
        GenericTask.Serving s = t.generic().serving();
        if (s == null) {
            return List.of();
        }
        String model = s.model() == null ? "" : s.model();
        return s.server().stream().map(w -> Word.template(w).mapText(x -> x.replace("{model}", model))).toList();
    }
}
