package io.isobench.store;

/**
 * An imported file (DESIGN.md §8 {@code source}): where data came from, so every number traces back to a file.
 * Build one with {@link #builder(String)}.
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

    /** A builder for source {@code sourceId}; everything not set is null. */
    public static Builder builder(String sourceId) {
        return new Builder(sourceId);
    }

    /** Builds a {@link SourceRecord} field by field. */
    public static final class Builder {
        private final String sourceId;
        private String formatId;
        private String path;
        private String sha256;
        private String pipeline;
        private String invocationGroup;
        private String agent;
        private String outcome;
        private String reason;
        private String contentArtifact;

        private Builder(String sourceId) {
            this.sourceId = sourceId;
        }

        public Builder format(String v) {
            formatId = v;
            return this;
        }

        /** The file: its path relative to the import root and its content hash. */
        public Builder file(String relativePath, String sha) {
            path = relativePath;
            sha256 = sha;
            return this;
        }

        public Builder pipeline(String v) {
            pipeline = v;
            return this;
        }

        public Builder invocationGroup(String v) {
            invocationGroup = v;
            return this;
        }

        public Builder agent(String v) {
            agent = v;
            return this;
        }

        /** The outcome (imported | recovered | refused | skipped) and why, or null. */
        public Builder outcome(String v, String why) {
            outcome = v;
            reason = why;
            return this;
        }

        public Builder contentArtifact(String v) {
            contentArtifact = v;
            return this;
        }

        public SourceRecord build() {
            return new SourceRecord(sourceId, formatId, path, sha256, pipeline, invocationGroup, agent, outcome,
                    reason, contentArtifact);
        }
    }
}
