-- The durable create of scenario C as a pgbench script: the statements the task service sends to
-- PostgreSQL for `POST /v1/tasks` of one task with a project by name, with the bench's task
-- (tools/bench/task-scenarios.ts, NEW_TASK). pgbench running it is the database's own limit for
-- our create on this machine.
--
-- When the service's write path changes, change this file to send what the service then sends.
--
-- pgbench.ts puts the commit function's name (it carries a digest of its text, see
-- src/store/postgres/commit-function.ts) in place of COMMIT_FUNCTION, then runs it as
-- `pgbench -n -M extended -f … -D first_account=… -D last_account=…`: the service's driver (pg)
-- sends parameters with the extended protocol, and so does pgbench with -M extended (each
-- :variable becomes a parameter). Values the service sends as parameters are literals here when
-- they never change.

-- One of the generated accounts, as the load spreads creates over all of them.
\set acct random(:first_account, :last_account)
-- The service makes a random 128-bit id; a random number serves here.
\set task_id random(1, 1000000000000000000)

-- The token check, which also reads where the account stands (src/store/postgres/accounts.ts,
-- findToken). The service finds the token by (account, hash); the account's first token by the
-- same key's first column is the same one index probe.
SELECT t.scope, t.expires_at, t.revoked_at, a.id, a.username, a.nickname, a.timezone, a.language, a.week_start, a.disabled, a.created, a.updated, a.rev, a.last_updated, a.purged_rev, a.stored_records, a.stored_bytes FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.account_id = :acct LIMIT 1 \gset

-- The project by name (src/service/tasks.ts, labelByName; record-reads.ts, readLiveLabel).
SELECT id, name, notes, archived, deleted, created, updated, rev FROM projects WHERE account_id = :acct AND name = 'Home & Garden' AND deleted IS NULL \gset project_

-- The next change number and stamp (src/store/stamp.ts: the later of now and last + 1 µs;
-- pgbench has no clock, so always last + 1 µs), and the usage the put adds (one record, the UTF-8
-- bytes of its title and notes).
\set next_rev :rev + 1
\set stamp :last_updated + 1
\set records :stored_records + 1
\set bytes :stored_bytes + 31 + 56

-- The commit (src/store/postgres/write.ts, commitPrepared): the task's row as the service sends
-- it, as jsonb, built here from the same values.
SELECT outcome, rev, last_updated, purged_rev, stored_records, stored_bytes FROM COMMIT_FUNCTION(:acct, :rev, :last_updated, :purged_rev, :next_rev, :stamp, :records, :bytes, NULL, NULL,
  jsonb_build_array(jsonb_build_object('account_id', :acct::bigint, 'id', :task_id::text, 'title', 'Buy milk & eggs for the weekend', 'notes', 'The organic ones from the market, not the supermarket <3', 'attribute', 'plan', 'all_day', false, 'start_at', 1795420800000000, 'end_at', NULL, 'completed', NULL, 'trashed', NULL, 'deleted', NULL, 'project_id', :project_id::text, 'project_name', :project_name::text, 'context_id', NULL, 'context_name', NULL, 'tags', jsonb_build_array('errand', 'home'), 'priority', 1, 'repeater', NULL, 'ical_extras', '', 'parent_id', NULL, 'sort_order', 0, 'reminders', '[]', 'reminder_due', NULL, 'created', :stamp::bigint, 'updated', :stamp::bigint, 'rev', :next_rev::bigint)),
  NULL, NULL, NULL, NULL, NULL);
