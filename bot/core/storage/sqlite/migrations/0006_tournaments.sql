-- calico-bot schema, version 6: tournaments (issue #23). A tournament row is versioned like a
-- game: every step (sign-up, pairing, round start, round end) is one UPDATE ... WHERE version = ?
-- with its entrants, tables and notices in the same transaction, so two processes (or one after
-- a restart) never pair a round twice. A table's game is linked in the transaction that creates
-- the game (game_id set only while still NULL).
CREATE TABLE tournaments (
    id                INTEGER PRIMARY KEY,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,
    organiser_id      INTEGER NOT NULL,
    name              TEXT    NOT NULL,
    format            TEXT    NOT NULL,            -- swiss | round_robin
    rounds            INTEGER NOT NULL,            -- planned (round-robin: set at the start)
    table_size        INTEGER NOT NULL,
    options           TEXT    NOT NULL,            -- LobbyOptions JSON of every table
    signup_ends_at    INTEGER NOT NULL,
    starts_at         INTEGER NOT NULL,
    round_hours       REAL    NOT NULL,            -- each round's deadline after its start
    status            TEXT    NOT NULL,            -- signup | running | paused | over | cancelled
    round             INTEGER NOT NULL DEFAULT 0,  -- the round being played (0: not started)
    round_deadline_at INTEGER,
    message_id        INTEGER,                     -- the sign-up message
    version           INTEGER NOT NULL DEFAULT 0,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
CREATE INDEX tournaments_guild ON tournaments (guild_id, status);
CREATE INDEX tournaments_due ON tournaments (status, starts_at);

CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    joined_at     INTEGER NOT NULL,
    withdrawn     INTEGER,                         -- the round they left after (NULL: still in)
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;

CREATE TABLE tournament_tables (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    players       TEXT    NOT NULL,                -- JSON list of user ids (one: a bye)
    game_id       INTEGER,
    outcome       TEXT,                            -- JSON {points, scores} once the round ended
    PRIMARY KEY (tournament_id, round, table_no)
) WITHOUT ROWID;
CREATE INDEX tournament_tables_game ON tournament_tables (game_id) WHERE game_id IS NOT NULL;
