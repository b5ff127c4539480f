-- calico-bot schema for PostgreSQL, version 5 (SQLite's migration 0006; see its comments).
CREATE TABLE tournaments (
    id                bigserial PRIMARY KEY,
    guild_id          bigint   NOT NULL,
    channel_id        bigint   NOT NULL,
    organiser_id      bigint   NOT NULL,
    name              text     NOT NULL,
    format            text     NOT NULL,
    rounds            integer  NOT NULL,
    table_size        integer  NOT NULL,
    options           text     NOT NULL,
    signup_ends_at    bigint   NOT NULL,
    starts_at         bigint   NOT NULL,
    round_hours       double precision NOT NULL,
    status            text     NOT NULL,
    round             integer  NOT NULL DEFAULT 0,
    round_deadline_at bigint,
    message_id        bigint,
    version           integer  NOT NULL DEFAULT 0,
    created_at        bigint   NOT NULL,
    updated_at        bigint   NOT NULL
);
CREATE INDEX tournaments_guild ON tournaments (guild_id, status);
CREATE INDEX tournaments_due ON tournaments (status, starts_at);

CREATE TABLE tournament_entrants (
    tournament_id bigint  NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       bigint  NOT NULL,
    name          text    NOT NULL,
    joined_at     bigint  NOT NULL,
    withdrawn     integer,
    PRIMARY KEY (tournament_id, user_id)
);

CREATE TABLE tournament_tables (
    tournament_id bigint  NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         integer NOT NULL,
    table_no      integer NOT NULL,
    players       text    NOT NULL,
    game_id       bigint,
    outcome       text,
    PRIMARY KEY (tournament_id, round, table_no)
);
CREATE INDEX tournament_tables_game ON tournament_tables (game_id) WHERE game_id IS NOT NULL;
