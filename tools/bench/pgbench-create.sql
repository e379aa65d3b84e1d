-- The durable create of scenario C as a pgbench script: the statements the task service sends to
-- PostgreSQL for `POST /v1/tasks` of one task with a project by name (src/store/postgres/write.ts,
-- write-tx.ts; src/service/tasks.ts), with the bench's task (tools/bench/task-scenarios.ts,
-- NEW_TASK). pgbench running it is the database's own limit for our create on this machine.
--
-- When the service's write path changes, change this file to send what the service then sends.
--
-- The bench runs it as `pgbench -n -M extended -f pgbench-create.sql -D first_account=… -D
-- last_account=…` against its database: the service's driver (pg) sends parameters with the
-- extended protocol, and so does pgbench with -M extended (each :variable becomes a parameter).
-- The values the service sends as parameters are literals here when they never change.

-- One of the generated accounts, as the load spreads creates over all of them.
\set acct random(:first_account, :last_account)
-- The service makes a random 128-bit id; a random number serves here.
\set id random(1, 1000000000000000000)

BEGIN;

-- Lock the account row and read its change counters (write.ts, LOCK_ACCOUNT).
SELECT rev, last_updated, stored_records, stored_bytes FROM accounts WHERE id = :acct FOR NO KEY UPDATE \gset

-- The project by name (tasks.ts, labelByName; write-tx.ts, findLive).
SELECT id, name, notes, archived, deleted, created, updated, rev FROM projects WHERE account_id = :acct AND name = 'Home & Garden' AND deleted IS NULL \gset project_

-- The next change number and stamp (src/store/stamp.ts: the later of now and last + 1 µs;
-- pgbench has no clock, so always last + 1 µs).
\set next_rev :rev + 1
\set stamp :last_updated + 1

-- The upsert (tables.ts, KIND_TABLES.task.upsert), with the values of the bench's task.
INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, start_at, end_at, completed, trashed, deleted, project_id, project_name, context_id, context_name, tags, priority, repeater, ical_extras, created, updated, rev)
      VALUES (:acct, :id, 'Buy milk & eggs for the weekend', 'The organic ones from the market, not the supermarket <3', 'plan', false, 1795420800000000, NULL, NULL, NULL, NULL, :project_id, :project_name, NULL, NULL, ARRAY['errand', 'home'], 1, NULL, '', :stamp, :stamp, :next_rev)
      ON CONFLICT (account_id, id) DO UPDATE SET title = EXCLUDED.title, notes = EXCLUDED.notes, attribute = EXCLUDED.attribute, all_day = EXCLUDED.all_day, start_at = EXCLUDED.start_at, end_at = EXCLUDED.end_at, completed = EXCLUDED.completed, trashed = EXCLUDED.trashed, deleted = EXCLUDED.deleted, project_id = EXCLUDED.project_id, project_name = EXCLUDED.project_name, context_id = EXCLUDED.context_id, context_name = EXCLUDED.context_name, tags = EXCLUDED.tags, priority = EXCLUDED.priority, repeater = EXCLUDED.repeater, ical_extras = EXCLUDED.ical_extras, updated = EXCLUDED.updated, rev = EXCLUDED.rev
      RETURNING id, title, notes, attribute, all_day, start_at, end_at, completed, trashed, deleted, project_id, project_name, context_id, context_name, tags, priority, repeater, created, updated, rev, ical_extras;

-- The account's usage after the put, for the quota check (storage-quota.ts, write-tx.ts usage()).
SELECT stored_records AS records, stored_bytes AS bytes FROM accounts WHERE id = :acct;

-- The new head (write.ts, SAVE_HEAD).
UPDATE accounts SET rev = :next_rev, last_updated = :stamp WHERE id = :acct;

COMMIT;
