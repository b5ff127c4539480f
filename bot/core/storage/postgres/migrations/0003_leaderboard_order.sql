-- calico-bot schema for PostgreSQL, version 3 (SQLite's migration 0004; see its comments).
DROP INDEX IF EXISTS player_totals_rank;
CREATE INDEX player_totals_board ON player_totals
    (guild_id, wins DESC, (CAST(score_sum AS REAL) / NULLIF(games, 0)) DESC, games DESC, user_id);
