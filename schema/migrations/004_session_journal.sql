-- math-forge knowledge.db: the session journal (issue 17). New tables only, so this step
-- commutes with changes to `findings`.
--
-- The hooks write one `session_events` row per declaration-level event of a Claude Code
-- session (hole opened or closed, proof rewritten, statement changed, gate fired); the Stop and
-- SessionEnd hooks derive candidate findings from them. `session_captures` remembers which
-- finding each (session, file, declaration, kind) became, so a repeated Stop or a resumed
-- session updates that finding instead of adding another. `verifications` keeps `mf verify`
-- verdicts by file path and content hash: a captured proof is `verified` only when the very
-- content it was read from passed. `sessions` holds per-session state (the problem, whether
-- the agent was already asked why its attempts failed), `finding_shown` which findings were
-- shown to a session and which of them a later proof of that session used.

CREATE TABLE IF NOT EXISTS session_events (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    file TEXT NOT NULL,                -- absolute path of the .lean file
    declaration TEXT NOT NULL,         -- full name ('' when the event is about the file)
    event TEXT NOT NULL CHECK(event IN (
        'hole_opened', 'hole_closed', 'proof_rewritten', 'statement_changed', 'gate_fired'
    )),
    statement TEXT,
    proof TEXT,                        -- the declaration's body after the event (bounded)
    tactics TEXT,                      -- comma-separated tactic names of that body
    lemmas TEXT,                       -- comma-separated lemma names the body uses
    technique TEXT,
    holes INTEGER NOT NULL DEFAULT 0 CHECK(holes >= 0),
    content_hash TEXT,                 -- blake3 of the whole file after the edit
    detail TEXT,
    at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX IF NOT EXISTS idx_session_events_session ON session_events(session_id, file, declaration);

CREATE TABLE IF NOT EXISTS session_captures (
    session_id TEXT NOT NULL,
    file TEXT NOT NULL,
    declaration TEXT NOT NULL,
    kind TEXT NOT NULL,                -- 'technique', 'failure', 'false_lemma'
    finding_id INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    captured_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (session_id, file, declaration, kind)
);

CREATE TABLE IF NOT EXISTS verifications (
    path TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK(verdict IN ('pass', 'fail', 'not-compiled')),
    verified_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (path, content_hash)
);

CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    problem_id TEXT,
    started_at TEXT NOT NULL DEFAULT (datetime('now')),
    why_asked_at TEXT
);

CREATE TABLE IF NOT EXISTS finding_shown (
    finding_id INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    shown_at TEXT NOT NULL DEFAULT (datetime('now')),
    used_at TEXT,
    PRIMARY KEY (finding_id, session_id)
);
