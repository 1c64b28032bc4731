-- isobench store schema v1. Runs on DuckDB and PostgreSQL; ${BLOB} becomes BLOB (DuckDB) or BYTEA (PostgreSQL).
-- Statements are separated by a semicolon at the end of a line.

CREATE TABLE task (
    task_id        VARCHAR PRIMARY KEY,
    repo           VARCHAR,
    commit_id      VARCHAR,
    parent_commit  VARCHAR,
    subject        VARCHAR,
    perf_command   VARCHAR,
    model          VARCHAR,
    gpu_config     VARCHAR,
    gpu_count      INTEGER
);

CREATE TABLE session (
    session_id        VARCHAR PRIMARY KEY,
    started_at        TIMESTAMP,
    ended_at          TIMESTAMP,
    host              VARCHAR,
    cpu               VARCHAR,
    gpu               VARCHAR,
    machine_json      VARCHAR,
    suite_json        VARCHAR,
    stats_config_json VARCHAR,
    seed              BIGINT,
    status            VARCHAR
);

CREATE TABLE run (
    run_id            VARCHAR PRIMARY KEY,
    session_id        VARCHAR,
    kind              VARCHAR NOT NULL,
    commit_id         VARCHAR,
    commit_short      VARCHAR,
    agent             VARCHAR,
    arm               VARCHAR NOT NULL,
    round             INTEGER NOT NULL,
    status            VARCHAR NOT NULL,
    failure_category  VARCHAR,
    failure_detail    VARCHAR,
    failure_evidence  VARCHAR,
    failure_retryable BOOLEAN,
    mode              VARCHAR,
    model             VARCHAR,
    pipeline          VARCHAR,
    source_id         VARCHAR,
    primary_metric    VARCHAR,
    primary_value     DOUBLE PRECISION,
    primary_origin    VARCHAR,
    workload          VARCHAR,
    started_at        TIMESTAMP,
    duration_ms       DOUBLE PRECISION,
    engine_version    VARCHAR,
    env_ref           VARCHAR,
    argv_json         VARCHAR,
    log_artifact      VARCHAR,
    notes             VARCHAR,
    extra_json        VARCHAR
);

-- seq keeps the order in which a run reported its metrics
CREATE TABLE metric (
    run_id  VARCHAR NOT NULL,
    seq     INTEGER NOT NULL,
    name    VARCHAR NOT NULL,
    value   DOUBLE PRECISION NOT NULL,
    unit    VARCHAR,
    better  VARCHAR
);

CREATE TABLE artifact (
    sha256      VARCHAR PRIMARY KEY,
    kind        VARCHAR,
    size_bytes  BIGINT NOT NULL,
    compressed  ${BLOB} NOT NULL
);

CREATE TABLE source (
    source_id        VARCHAR PRIMARY KEY,
    format_id        VARCHAR,
    path             VARCHAR,
    sha256           VARCHAR,
    pipeline         VARCHAR,
    invocation_group VARCHAR,
    agent            VARCHAR,
    outcome          VARCHAR,
    reason           VARCHAR,
    content_artifact VARCHAR,
    imported_at      TIMESTAMP
);

CREATE INDEX run_agent_commit ON run (agent, commit_short);
CREATE INDEX run_source ON run (source_id);
CREATE INDEX metric_run ON metric (run_id);
CREATE INDEX source_path ON source (path, sha256);
