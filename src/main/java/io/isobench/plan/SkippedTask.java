package io.isobench.plan;

/** A task the planner will not run, with the reason (lint findings, no mode). */
public record SkippedTask(String taskId, String category, String reason) {
}
