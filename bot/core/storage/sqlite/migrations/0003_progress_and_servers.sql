-- calico-bot schema, version 3: what lasts beyond one game (achievements, ratings, the weekly
-- challenge, reviews), per-server settings, and notices that are not about a game.

-- Notices not about a game (the weekly challenge's summary in a server's channel) have no
-- game: game_id 0 and a channel_id. The foreign keys go (SQLite must rebuild the tables for
-- that); game rows are never deleted, so nothing relied on the cascade.
CREATE TABLE outbox_new (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL,                -- 0: not about a game (see channel_id)
    kind       TEXT    NOT NULL,
    user_id    INTEGER,
    ply        INTEGER NOT NULL,
    payload    TEXT    NOT NULL,
    key        TEXT    NOT NULL UNIQUE,
    status     TEXT    NOT NULL DEFAULT 'pending',
    attempts   INTEGER NOT NULL DEFAULT 0,
    due_at     INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    done_at    INTEGER,
    recipient  INTEGER NOT NULL DEFAULT 0,
    message_id INTEGER,
    channel_id INTEGER                          -- where a notice without a game goes
);
INSERT INTO outbox_new (id, game_id, kind, user_id, ply, payload, key, status, attempts, due_at,
                        last_error, created_at, done_at, recipient, message_id)
    SELECT id, game_id, kind, user_id, ply, payload, key, status, attempts, due_at, last_error,
           created_at, done_at, recipient, message_id FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
CREATE INDEX outbox_lane ON outbox (game_id, recipient, id) WHERE status = 'pending';
CREATE INDEX outbox_pending_age ON outbox (created_at) WHERE status = 'pending';
CREATE INDEX outbox_done ON outbox (done_at) WHERE status <> 'pending';

CREATE TABLE lanes_new (
    game_id     INTEGER NOT NULL,
    recipient   INTEGER NOT NULL,
    next_due    INTEGER,
    owner       TEXT,
    lease_until INTEGER,
    PRIMARY KEY (game_id, recipient)
) WITHOUT ROWID;
INSERT INTO lanes_new SELECT game_id, recipient, next_due, owner, lease_until FROM lanes;
DROP TABLE lanes;
ALTER TABLE lanes_new RENAME TO lanes;
CREATE INDEX lanes_due ON lanes (next_due) WHERE next_due IS NOT NULL;

ALTER TABLE games ADD COLUMN rematch_of INTEGER;      -- the game this one is a rematch of
ALTER TABLE games ADD COLUMN challenge_week TEXT;     -- the weekly challenge it plays
CREATE INDEX games_challenge ON games (challenge_week) WHERE challenge_week IS NOT NULL;

-- The rulebook's achievements, one row per person and achievement: the first game earning it.
CREATE TABLE achievements (
    user_id     INTEGER NOT NULL,
    achievement TEXT    NOT NULL,
    game_id     INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    earned_at   INTEGER NOT NULL,
    PRIMARY KEY (user_id, achievement)
) WITHOUT ROWID;

-- Skill ratings (OpenSkill) per scope (a server id; 0: every server) and player ("u:<user id>"
-- or "ai:<level>"), updated in the same transaction as the game's result. ordinal: the
-- conservative rating the leaderboard ranks by.
CREATE TABLE ratings (
    scope      INTEGER NOT NULL,
    player     TEXT    NOT NULL,
    mu         REAL    NOT NULL,
    sigma      REAL    NOT NULL,
    ordinal    REAL    NOT NULL,
    games      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, player)
) WITHOUT ROWID;
CREATE INDEX ratings_rank ON ratings (scope, ordinal DESC);

-- The weekly challenge: one deal per week (its seed secret, like every game's), one attempt
-- per person; closed once, with its summary queued in the same transaction.
CREATE TABLE challenges (
    week      TEXT    PRIMARY KEY,              -- ISO week, e.g. 2026-W48
    seed      INTEGER NOT NULL,
    options   TEXT    NOT NULL,                 -- LobbyOptions JSON
    starts_at INTEGER NOT NULL,
    ends_at   INTEGER NOT NULL,
    closed_at INTEGER
);
CREATE TABLE challenge_entries (
    week        TEXT    NOT NULL,
    user_id     INTEGER NOT NULL,
    game_id     INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    score       INTEGER,                        -- NULL until the game is over
    finished_at INTEGER,
    PRIMARY KEY (week, user_id)
) WITHOUT ROWID;
CREATE INDEX challenge_board ON challenge_entries (week, score DESC) WHERE score IS NOT NULL;

-- Reviews of finished games, computed once per seat and kept.
CREATE TABLE reviews (
    game_id    INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    user_id    INTEGER,
    accuracy   REAL    NOT NULL,
    data       TEXT    NOT NULL,                -- the review's JSON
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX reviews_user ON reviews (user_id);

-- Each server's settings (/calico admin), as JSON so that adding one needs no migration.
CREATE TABLE guild_settings (
    guild_id   INTEGER PRIMARY KEY,
    data       TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
);
