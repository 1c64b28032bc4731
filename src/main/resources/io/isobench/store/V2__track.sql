-- isobench store schema v2: `isobench track` (docs/track.md). A track is one task's series over a first-parent commit
-- range; its runs are ordinary `run` rows of the track's session (arm `track`). Statements end with a semicolon at
-- the end of a line.

CREATE TABLE track (
    track_id         VARCHAR PRIMARY KEY,
    task_id          VARCHAR NOT NULL,
    suite_name       VARCHAR,
    range_spec       VARCHAR NOT NULL,
    repo             VARCHAR,
    every_n          INTEGER NOT NULL,
    runs_per_commit  INTEGER NOT NULL,
    anchor_commit    VARCHAR,
    metric           VARCHAR,
    better           VARCHAR,
    session_id       VARCHAR,
    started_at       TIMESTAMP,
    status           VARCHAR NOT NULL,
    settings_json    VARCHAR
);

CREATE TABLE track_commit (
    track_id       VARCHAR NOT NULL,
    position       INTEGER NOT NULL,
    commit_id      VARCHAR NOT NULL,
    parent_commit  VARCHAR,
    subject        VARCHAR,
    selected       BOOLEAN NOT NULL,
    state          VARCHAR NOT NULL,
    detail         VARCHAR,
    PRIMARY KEY (track_id, position)
);

CREATE TABLE track_change (
    track_id           VARCHAR NOT NULL,
    task_id            VARCHAR NOT NULL,
    position           INTEGER NOT NULL,
    commit_id          VARCHAR NOT NULL,
    parent_commit      VARCHAR,
    metric             VARCHAR NOT NULL,
    direction          VARCHAR NOT NULL,
    change_pct         DOUBLE PRECISION,
    ci_low_pct         DOUBLE PRECISION,
    ci_high_pct        DOUBLE PRECISION,
    status             VARCHAR NOT NULL,
    first_commit       VARCHAR,
    evidence           VARCHAR,
    candidate_p_value  DOUBLE PRECISION,
    session_id         VARCHAR,
    bisect_json        VARCHAR,
    updated_at         TIMESTAMP,
    PRIMARY KEY (track_id, commit_id, metric)
);

CREATE INDEX track_task ON track (task_id);
CREATE INDEX track_change_task ON track_change (task_id);
