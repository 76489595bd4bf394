"""The results store's schema, as the steps that build it (store/sqlite.py applies them)."""

# Each entry brings the schema from version i to i + 1; never edit one that has shipped,
# append a new one instead.
MIGRATIONS = [
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        created TEXT NOT NULL,
        kind TEXT NOT NULL,
        command TEXT NOT NULL,
        status TEXT NOT NULL,
        headline TEXT NOT NULL DEFAULT '',
        spec TEXT NOT NULL,
        env TEXT NOT NULL,
        result TEXT NOT NULL
    );
    CREATE INDEX runs_created ON runs(created);
    CREATE INDEX runs_kind ON runs(kind);
    """,
    # `pario tune` sessions: the session record (model.tuning.TuningSession) as one JSON document,
    # rewritten after every trial; its trials' runs are rows of `runs` (kind 'tune') that the
    # document names. One document, not a trials table: a session is read and written whole, its
    # trials are few, and its shape is the model's (a resume needs all of it at once).
    """
    CREATE TABLE tune_sessions (
        id INTEGER PRIMARY KEY,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        status TEXT NOT NULL,
        command TEXT NOT NULL,
        headline TEXT NOT NULL DEFAULT '',
        doc TEXT NOT NULL
    );
    """,
    # `pario results tag`: a run's labels (a baseline, a machine, a CI job), filtered with --tag.
    """
    CREATE TABLE run_tags (
        run_id INTEGER NOT NULL,
        tag TEXT NOT NULL,
        PRIMARY KEY (run_id, tag)
    );
    CREATE INDEX run_tags_tag ON run_tags(tag);
    """,
    # Batch jobs pario submitted to Slurm (bench --submit, a tuning session's trials): the job
    # stores its own run (env.slurm.job names it); this row says what was submitted, what Slurm
    # last said of it, and which run it made, so that a front end that was gone (logged out) can
    # pick the results up.
    """
    CREATE TABLE slurm_jobs (
        id INTEGER PRIMARY KEY,
        created TEXT NOT NULL,
        kind TEXT NOT NULL,
        cluster TEXT NOT NULL DEFAULT '',
        job_id TEXT NOT NULL,
        state TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        exit_code TEXT NOT NULL DEFAULT '',
        command TEXT NOT NULL,
        script TEXT NOT NULL DEFAULT '',
        output TEXT NOT NULL DEFAULT '',
        run_id INTEGER,
        session_id INTEGER,
        doc TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX slurm_jobs_job ON slurm_jobs(job_id);
    CREATE INDEX slurm_jobs_session ON slurm_jobs(session_id);
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
