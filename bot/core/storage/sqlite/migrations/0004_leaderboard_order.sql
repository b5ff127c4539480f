-- calico-bot schema, version 4: the leaderboard reads player_totals in its own order (wins,
-- then average score, then games), so a server with 100,000 players answers from the first
-- rows of an index instead of sorting them all (measured: 16 ms median, 30 ms p99 before).
-- NULLIF keeps the expression defined for a row without games (never listed: games >= 1).
DROP INDEX IF EXISTS player_totals_rank;
CREATE INDEX player_totals_board ON player_totals
    (guild_id, wins DESC, (CAST(score_sum AS REAL) / NULLIF(games, 0)) DESC, games DESC, user_id);
