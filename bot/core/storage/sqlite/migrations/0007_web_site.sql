-- calico-bot schema, version 7: the companion web site (issue #32). Who hid their name from
-- it (/calico settings), and each player's rating after every rated game (the rating plot),
-- written in the game's own transaction right after the ratings.
CREATE TABLE site_hidden (
    user_id   INTEGER PRIMARY KEY,
    hidden_at INTEGER NOT NULL
);

CREATE TABLE rating_history (
    scope   INTEGER NOT NULL,
    player  TEXT    NOT NULL,
    game_id INTEGER NOT NULL,
    ordinal REAL    NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (scope, player, game_id)
) WITHOUT ROWID;
CREATE INDEX rating_history_at ON rating_history (scope, player, at);
