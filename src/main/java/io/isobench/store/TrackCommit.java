package io.isobench.store;

/**
 * A commit of a track's range, in first-parent order.
 *
 * @param trackId      the track
 * @param position     0 for the range's base (REV1), then 1, 2, … along the first-parent line up to REV2
 * @param commitId     the full commit id
 * @param parentCommit its first parent (full id), or null for a root commit
 * @param subject      the commit's subject line (untrusted text: escape it where shown)
 * @param selected     measured in the series ({@code --every N}: every N-th commit and both ends)
 * @param state        {@code pending}, {@code measured}, {@code build_failed}, {@code failed} or {@code not_selected}
 * @param detail       why a commit was not measured (a build's last lines), or null
 */
public record TrackCommit(String trackId, int position, String commitId, String parentCommit, String subject,
                          boolean selected, String state, String detail) {

    public TrackCommit {
        TrackRows.require(trackId, "a track commit needs its track id");
        TrackRows.require(commitId, "track " + trackId + " position " + position + " needs its commit");
        TrackRows.require(state, "track " + trackId + " commit " + commitId + " needs a state");
        if (position < 0) {
            throw new IllegalArgumentException("track " + trackId + ": position " + position + " must be >= 0");
        }
    }

    /** A commit of a new track's range: {@code pending} when selected, else {@code not_selected}. */
    public static TrackCommit of(String trackId, int position, String commitId, String parentCommit, String subject,
                                 boolean selected) {
        return new TrackCommit(trackId, position, commitId, parentCommit, subject, selected,
                selected ? "pending" : "not_selected", null);
    }

    /** This commit in {@code newState}, with {@code newDetail}. */
    public TrackCommit withState(String newState, String newDetail) {
        return new TrackCommit(trackId, position, commitId, parentCommit, subject, selected, newState, newDetail);
    }
}
