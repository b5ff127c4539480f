-- calico-bot schema for PostgreSQL, version 1 (the same tables and meaning as SQLite's
-- migrations 0001 + 0002; see bot/core/storage/sqlite/migrations for the comments).
-- Times are bigint milliseconds since the Unix epoch (UTC). JSON columns hold text (the same
-- encoder as SQLite). Flags are 0/1 integers, as in SQLite, so rows copy across unchanged.

CREATE TABLE games (
    id               bigserial PRIMARY KEY,
    status           text    NOT NULL,
    guild_id         bigint  NOT NULL,
    channel_id       bigint  NOT NULL,
    thread_id        bigint,
    lobby_message_id bigint,
    host_id          bigint  NOT NULL,
    options          text    NOT NULL,
    first_user_id    bigint,
    engine_options   text,
    state            text,
    version          integer NOT NULL DEFAULT 0,
    ply              integer NOT NULL DEFAULT 0,
    deadline_at      bigint,
    end_reason       text,
    created_at       bigint  NOT NULL,
    updated_at       bigint  NOT NULL,
    flags            integer NOT NULL DEFAULT 0
);
CREATE INDEX games_thread ON games (thread_id);
CREATE INDEX games_channel ON games (channel_id);
CREATE INDEX games_guild ON games (guild_id, status);

CREATE TABLE seats (
    game_id       bigint  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat          integer NOT NULL,
    user_id       bigint,
    name          text    NOT NULL,
    ai_level      text,
    left_game     integer NOT NULL DEFAULT 0,
    fallback_sent integer NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX seats_user ON seats (user_id);

CREATE TABLE moves (
    game_id    bigint  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply        integer NOT NULL,
    seat       integer NOT NULL,
    move       text    NOT NULL,
    played_by  text    NOT NULL,
    events     text    NOT NULL,
    created_at bigint  NOT NULL,
    PRIMARY KEY (game_id, ply)
);

CREATE TABLE outbox (
    id         bigserial PRIMARY KEY,
    game_id    bigint  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind       text    NOT NULL,
    user_id    bigint,
    ply        integer NOT NULL,
    payload    text    NOT NULL,
    key        text    NOT NULL UNIQUE,
    status     text    NOT NULL DEFAULT 'pending',
    attempts   integer NOT NULL DEFAULT 0,
    due_at     bigint  NOT NULL,
    last_error text,
    created_at bigint  NOT NULL,
    done_at    bigint,
    recipient  bigint  NOT NULL DEFAULT 0,
    message_id bigint
);
CREATE INDEX outbox_lane ON outbox (game_id, recipient, id) WHERE status = 'pending';
CREATE INDEX outbox_pending_age ON outbox (created_at) WHERE status = 'pending';
CREATE INDEX outbox_done ON outbox (done_at) WHERE status <> 'pending';

CREATE TABLE lanes (
    game_id     bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    recipient   bigint NOT NULL,
    next_due    bigint,
    owner       text,
    lease_until bigint,
    PRIMARY KEY (game_id, recipient)
);
CREATE INDEX lanes_due ON lanes (next_due) WHERE next_due IS NOT NULL;

CREATE TABLE timers (
    game_id     bigint  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind        text    NOT NULL,
    seat        integer NOT NULL,
    due_at      bigint  NOT NULL,
    deadline_at bigint,
    reminders   integer NOT NULL DEFAULT 0,
    owner       text,
    lease_until bigint,
    failures    integer NOT NULL DEFAULT 0,
    last_error  text,
    PRIMARY KEY (game_id, kind, seat)
);
CREATE INDEX timers_due ON timers (due_at);

CREATE TABLE users (
    user_id          bigint  PRIMARY KEY,
    name             text    NOT NULL DEFAULT '',
    locale           text,
    reminders        integer NOT NULL DEFAULT 1,
    dm_closed_at     bigint,
    last_reminder_at bigint,
    describe         integer NOT NULL DEFAULT 0
);

CREATE TABLE results (
    game_id     bigint  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        integer NOT NULL,
    user_id     bigint,
    guild_id    bigint  NOT NULL,
    total       integer NOT NULL,
    place       integer NOT NULL,
    win         integer NOT NULL,
    counted     integer NOT NULL,
    breakdown   text    NOT NULL,
    finished_at bigint  NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX results_user ON results (user_id, guild_id) WHERE counted = 1;
CREATE INDEX results_guild ON results (guild_id, user_id) WHERE counted = 1;

CREATE TABLE player_totals (
    guild_id  bigint  NOT NULL,
    user_id   bigint  NOT NULL,
    games     integer NOT NULL,
    wins      integer NOT NULL,
    score_sum bigint  NOT NULL,
    best      integer NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX player_totals_rank ON player_totals (guild_id, wins DESC, score_sum DESC);

CREATE TABLE app_state (
    key        text   PRIMARY KEY,
    value      text   NOT NULL,
    updated_at bigint NOT NULL
);
