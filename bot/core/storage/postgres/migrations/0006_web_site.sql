-- calico-bot schema for PostgreSQL, version 6 (SQLite's migration 0007; see its comments).
CREATE TABLE site_hidden (
    user_id   bigint PRIMARY KEY,
    hidden_at bigint NOT NULL
);

CREATE TABLE rating_history (
    scope   bigint           NOT NULL,
    player  text             NOT NULL,
    game_id bigint           NOT NULL,
    ordinal double precision NOT NULL,
    at      bigint           NOT NULL,
    PRIMARY KEY (scope, player, game_id)
);
CREATE INDEX rating_history_at ON rating_history (scope, player, at);
