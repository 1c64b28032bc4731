package io.isobench.session;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.plan.Job;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Progress as JSON lines, one object per event, for programs that follow a session: {@code event} is
 * {@code start_session}, {@code start_job}, {@code job_result}, {@code note}, {@code interrupted} or
 * {@code end_session}; the other keys are the event's fields (snake_case).
 */
final class JsonListener implements SessionListener {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final PrintWriter out;

    JsonListener(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void startSession(String sessionId, int jobs, int alreadyFinished, int parallel) {
        Map<String, Object> e = event("start_session");
        e.put("session", sessionId);
        e.put("jobs", jobs);
        e.put("already_finished", alreadyFinished);
        e.put("parallel", parallel);
        emit(e);
    }

    @Override
    public void startJob(Job job) {
        emit(job(event("start_job"), job));
    }

    @Override
    public void jobResult(JobProgress p) {
        Map<String, Object> e = job(event("job_result"), p.job());
        e.put("done", p.done());
        e.put("total", p.total());
        e.put("round", p.round());
        e.put("failure", p.outcome().failure());
        e.put("metric", p.outcome().metric());
        e.put("value", p.outcome().value());
        e.put("eta_s", p.etaS());
        emit(e);
    }

    @Override
    public void note(String line) {
        Map<String, Object> e = event("note");
        e.put("text", line);
        emit(e);
    }

    @Override
    public void interrupted(String resumeCommand) {
        Map<String, Object> e = event("interrupted");
        e.put("resume", resumeCommand);
        emit(e);
    }

    @Override
    public void endSession(SessionSummary.Run s) {
        Map<String, Object> e = event("end_session");
        e.put("session", s.sessionId());
        e.put("jobs", s.counts().jobs());
        e.put("accuracy_runs", s.counts().accuracyRuns());
        e.put("ran", s.counts().ran());
        e.put("already_finished", s.counts().skippedFinished());
        e.put("succeeded", s.counts().succeeded());
        e.put("failed", s.counts().failed());
        e.put("reaped_groups", s.reapedGroups());
        e.put("failures", s.failures());
        e.put("wall_s", s.wall().toMillis() / 1000.0);
        emit(e);
    }

    private static Map<String, Object> event(String name) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("event", name);
        return e;
    }

    private static Map<String, Object> job(Map<String, Object> e, Job job) {
        e.put("job", job.jobId());
        e.put("task", job.taskId());
        e.put("arm", job.arm().label());
        return e;
    }

    private synchronized void emit(Map<String, Object> event) {
        try {
            out.println(JSON.writeValueAsString(event));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        out.flush();
    }
}
