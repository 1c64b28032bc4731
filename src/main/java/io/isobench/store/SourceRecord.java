package io.isobench.store;

/**
 * An imported file (DESIGN.md §8 {@code source}): where data came from, so every number traces back to a file.
 *
 * @param sourceId        stable id (sha256 of relative path + content hash)
 * @param formatId        legacy format id (R1…R13, exports, hf) or a skip reason class
 * @param path            path relative to the import root
 * @param sha256          content hash of the file
 * @param pipeline        pipeline id for 3-way sources, or null
 * @param invocationGroup files produced by one invocation share this id (same-run sources), or null
 * @param agent           agent of the tree, or null
 * @param outcome         imported | recovered | refused | skipped
 * @param reason          why refused/skipped/recovered, or null
 * @param contentArtifact sha256 of the whole file in the artifact table, or null
 */
public record SourceRecord(
        String sourceId,
        String formatId,
        String path,
        String sha256,
        String pipeline,
        String invocationGroup,
        String agent,
        String outcome,
        String reason,
        String contentArtifact) {
}
