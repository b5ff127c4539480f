-- calico-bot schema for PostgreSQL, version 2 (SQLite's migration 0003; see its comments).
ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_game_id_fkey;
ALTER TABLE outbox ADD COLUMN channel_id bigint;
ALTER TABLE lanes DROP CONSTRAINT IF EXISTS lanes_game_id_fkey;

ALTER TABLE games ADD COLUMN rematch_of bigint;
ALTER TABLE games ADD COLUMN challenge_week text;
CREATE INDEX games_challenge ON games (challenge_week) WHERE challenge_week IS NOT NULL;

CREATE TABLE achievements (
    user_id     bigint NOT NULL,
    achievement text   NOT NULL,
    game_id     bigint NOT NULL,
    guild_id    bigint NOT NULL,
    earned_at   bigint NOT NULL,
    PRIMARY KEY (user_id, achievement)
);

CREATE TABLE ratings (
    scope      bigint           NOT NULL,
    player     text             NOT NULL,
    mu         double precision NOT NULL,
    sigma      double precision NOT NULL,
    ordinal    double precision NOT NULL,
    games      integer          NOT NULL,
    updated_at bigint           NOT NULL,
    PRIMARY KEY (scope, player)
);
CREATE INDEX ratings_rank ON ratings (scope, ordinal DESC);

CREATE TABLE challenges (
    week      text   PRIMARY KEY,
    seed      bigint NOT NULL,
    options   text   NOT NULL,
    starts_at bigint NOT NULL,
    ends_at   bigint NOT NULL,
    closed_at bigint
);
CREATE TABLE challenge_entries (
    week        text    NOT NULL,
    user_id     bigint  NOT NULL,
    game_id     bigint  NOT NULL,
    guild_id    bigint  NOT NULL,
    score       integer,
    finished_at bigint,
    PRIMARY KEY (week, user_id)
);
CREATE INDEX challenge_board ON challenge_entries (week, score DESC) WHERE score IS NOT NULL;

CREATE TABLE reviews (
    game_id    bigint           NOT NULL,
    seat       integer          NOT NULL,
    user_id    bigint,
    accuracy   double precision NOT NULL,
    data       text             NOT NULL,
    created_at bigint           NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX reviews_user ON reviews (user_id);

CREATE TABLE guild_settings (
    guild_id   bigint PRIMARY KEY,
    data       text   NOT NULL,
    updated_at bigint NOT NULL
);
