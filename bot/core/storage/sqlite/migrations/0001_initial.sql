-- calico-bot schema, version 1.
-- Times are integer milliseconds since the Unix epoch (UTC). JSON columns hold text.
-- The engine seed lives only inside games.state (never in its own column, never in notices).

CREATE TABLE games (
    id               INTEGER PRIMARY KEY,
    status           TEXT    NOT NULL,          -- lobby | draft | play | over | cancelled | abandoned
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    thread_id        INTEGER,
    lobby_message_id INTEGER,
    host_id          INTEGER NOT NULL,
    options          TEXT    NOT NULL,          -- LobbyOptions JSON
    first_user_id    INTEGER,                   -- the "pet a cat" winner, while in the lobby
    engine_options   TEXT,                      -- engine GameOptions JSON, set at start (replay)
    state            TEXT,                      -- engine state JSON (holds the seed); NULL in the lobby
    version          INTEGER NOT NULL DEFAULT 0, -- optimistic lock: +1 with every change
    ply              INTEGER NOT NULL DEFAULT 0,
    deadline_at      INTEGER,
    end_reason       TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX games_thread ON games (thread_id);
CREATE INDEX games_channel ON games (channel_id);
CREATE INDEX games_guild ON games (guild_id, status);

CREATE TABLE seats (
    game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat          INTEGER NOT NULL,
    user_id       INTEGER,                      -- NULL for a seat that was a computer from the lobby
    name          TEXT    NOT NULL,
    ai_level      TEXT,                         -- NULL: a person plays it
    left_game     INTEGER NOT NULL DEFAULT 0,
    fallback_sent INTEGER NOT NULL DEFAULT 0,   -- the "DMs closed" thread notice was posted
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX seats_user ON seats (user_id);

-- Append-only move log: replaying it from the seed rebuilds every state.
CREATE TABLE moves (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply        INTEGER NOT NULL,                -- the engine's ply before the move
    seat       INTEGER NOT NULL,
    move       TEXT    NOT NULL,                -- engine notation
    played_by  TEXT    NOT NULL,                -- user | autopilot | computer
    events     TEXT    NOT NULL,                -- JSON list of event dicts
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE TABLE outbox (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL,
    user_id    INTEGER,                         -- DM target; NULL: the game's thread
    ply        INTEGER NOT NULL,
    payload    TEXT    NOT NULL,
    key        TEXT    NOT NULL UNIQUE,         -- idempotency key (Discord nonce)
    status     TEXT    NOT NULL DEFAULT 'pending', -- pending | done | failed | skipped
    attempts   INTEGER NOT NULL DEFAULT 0,
    due_at     INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    done_at    INTEGER
);
CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';  -- the dispatcher's scan
CREATE INDEX outbox_lane ON outbox (game_id, user_id, id) WHERE status = 'pending';
CREATE INDEX outbox_done ON outbox (done_at) WHERE status <> 'pending';

-- Every timer is a row with a due time; one periodic sweep acts on the due ones.
CREATE TABLE timers (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind        TEXT    NOT NULL,               -- turn (a seat must act) | idle (whole game)
    seat        INTEGER NOT NULL,               -- -1 for whole-game timers
    due_at      INTEGER NOT NULL,
    deadline_at INTEGER,
    reminders   INTEGER NOT NULL DEFAULT 0,     -- reminders counted for this turn so far
    PRIMARY KEY (game_id, kind, seat)
) WITHOUT ROWID;
CREATE INDEX timers_due ON timers (due_at);

CREATE TABLE users (
    user_id          INTEGER PRIMARY KEY,
    name             TEXT    NOT NULL DEFAULT '',
    locale           TEXT,
    reminders        INTEGER NOT NULL DEFAULT 1,
    dm_closed_at     INTEGER,
    last_reminder_at INTEGER
);

CREATE TABLE results (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL,
    user_id     INTEGER,
    guild_id    INTEGER NOT NULL,
    total       INTEGER NOT NULL,
    place       INTEGER NOT NULL,
    win         INTEGER NOT NULL,
    counted     INTEGER NOT NULL,               -- a person held the seat to the end
    breakdown   TEXT    NOT NULL,               -- the scorer's JSON breakdown
    finished_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX results_user ON results (user_id, guild_id) WHERE counted = 1;
CREATE INDEX results_guild ON results (guild_id, user_id) WHERE counted = 1;
