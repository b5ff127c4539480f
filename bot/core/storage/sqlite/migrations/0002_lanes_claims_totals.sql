-- calico-bot schema, version 2: growing past one process and staying fast as it grows.
--
-- Outbox lanes: one row per (game, recipient) with work queued; the dispatcher claims due lanes
-- (oldest first, so lanes take turns) with a lease, instead of scanning every pending notice.
-- recipient: the user id of a DM lane, 0 for the game's thread. next_due: when the lane has work
-- due (NULL: idle); while claimed it is the end of the lease, so a lane whose claimer died comes
-- due again by itself.
ALTER TABLE outbox ADD COLUMN recipient INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN message_id INTEGER;  -- the Discord message a delivery created
UPDATE outbox SET recipient = coalesce(user_id, 0);
DROP INDEX outbox_pending;
DROP INDEX outbox_lane;
CREATE INDEX outbox_lane ON outbox (game_id, recipient, id) WHERE status = 'pending';
CREATE INDEX outbox_pending_age ON outbox (created_at) WHERE status = 'pending';

CREATE TABLE lanes (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    recipient   INTEGER NOT NULL,
    next_due    INTEGER,
    owner       TEXT,
    lease_until INTEGER,
    PRIMARY KEY (game_id, recipient)
) WITHOUT ROWID;
CREATE INDEX lanes_due ON lanes (next_due) WHERE next_due IS NOT NULL;
INSERT INTO lanes (game_id, recipient, next_due)
    SELECT game_id, recipient, min(due_at) FROM outbox WHERE status = 'pending'
    GROUP BY game_id, recipient;

-- Timers are claimed with a lease too; a timer that keeps failing backs off (failures, due_at).
ALTER TABLE timers ADD COLUMN owner TEXT;
ALTER TABLE timers ADD COLUMN lease_until INTEGER;
ALTER TABLE timers ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE timers ADD COLUMN last_error TEXT;

-- Game flags (bit 1: someone took a hint) and the "describe pictures in text" setting.
ALTER TABLE games ADD COLUMN flags INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN describe INTEGER NOT NULL DEFAULT 0;

-- Per-person totals per server (guild_id 0: every server), kept up to date in the same
-- transaction as each result, so stats and the leaderboard never scan the results.
CREATE TABLE player_totals (
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    games     INTEGER NOT NULL,
    wins      INTEGER NOT NULL,
    score_sum INTEGER NOT NULL,
    best      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;
CREATE INDEX player_totals_rank ON player_totals (guild_id, wins DESC, score_sum DESC);
INSERT INTO player_totals (guild_id, user_id, games, wins, score_sum, best)
    SELECT guild_id, user_id, count(*), sum(win), sum(total), max(total) FROM results
    WHERE counted = 1 AND user_id IS NOT NULL GROUP BY guild_id, user_id;
INSERT INTO player_totals (guild_id, user_id, games, wins, score_sum, best)
    SELECT 0, user_id, count(*), sum(win), sum(total), max(total) FROM results
    WHERE counted = 1 AND user_id IS NOT NULL GROUP BY user_id;

-- Small shared settings: command-sync fingerprints (per application and scope), cluster layout.
CREATE TABLE app_state (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
