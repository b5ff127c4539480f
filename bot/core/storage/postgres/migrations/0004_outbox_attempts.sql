-- calico-bot schema for PostgreSQL, version 4 (SQLite's migration 0005; see its comments).
ALTER TABLE outbox ADD COLUMN sent_at bigint;
ALTER TABLE lanes ADD COLUMN served_since bigint;
