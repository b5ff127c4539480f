-- calico-bot schema, version 5: exactly once after any outage (issue 20, item 14).
-- A post Discord made just before the process died is refused again by its nonce only for a few
-- minutes; past that, the dispatcher looks for it in the channel before posting again. For that
-- it must know, after a restart, that a notice may already be out and since when:
-- - outbox.sent_at: the first time the notice may have reached Discord (a failed attempt, or
--   a serve that ended without recording it); NULL: never tried, or tried and recorded;
-- - lanes.served_since: when the lane's current serve began; set by the claim (kept by a
--   claim that takes the lane over from a process that died) and cleared when the lane is
--   given back, so a claim that finds it set knows the previous serve never ended.
-- Both are written by statements that run anyway (claim, release, retry): no write more per
-- post.
ALTER TABLE outbox ADD COLUMN sent_at INTEGER;
ALTER TABLE lanes ADD COLUMN served_since INTEGER;
