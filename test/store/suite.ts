import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContextDraft, ProjectDraft } from '../../src/domain/label.js';
import { NEW_TASK, type Task, type TaskDraft } from '../../src/domain/task.js';
import { MICROS_PER_DAY, microsFromMillis, type Micros } from '../../src/domain/time.js';
import { DomainError, StoreUnavailableError, UsernameTakenError } from '../../src/domain/errors.js';
import {
  SYNC_KINDS,
  type DraftsByKind,
  type RecordsByKind,
  type SyncKind,
  type WriteOutcome,
} from '../../src/domain/sync.js';
import { countedBytes } from '../../src/store/kinds/records.js';
import type { ListQuery, ListSnapshot, Store, WriteTx } from '../../src/store/store.js';
import { ReminderService } from '../../src/service/reminders.js';

/**
 * The Store contract, checked through the Store interface only, so that every engine runs the
 * same suite. `open` makes a fresh, empty store for each test (the suite calls `migrate()`);
 * `cleanup` runs after each test, also after a test that closed the store itself.
 */
/** What a suite run opens: the store and its cleanup. */
export interface OpenedStore {
  readonly store: Store;
  cleanup(): Promise<void>;
}

/** How the suite opens a store; a test may set the clock that stamps records. */
export interface OpenOptions {
  readonly clock?: () => Micros;
}

export function storeSuite(name: string, open: (options?: OpenOptions) => Promise<OpenedStore>): void {
  describe(`${name} store`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let accounts = 0;

    beforeEach(async () => {
      ({ store, cleanup } = await open());
      await store.migrate();
    });
    afterEach(async () => {
      await cleanup();
    });

    /** A new account's id; usernames are unique within the test. */
    async function newAccountId(): Promise<number> {
      accounts += 1;
      const account = await store.createAccount({ username: `user-${accounts}`, passwordHash: null, timezone: 'UTC' });
      return account.id;
    }

    function listAll<K extends SyncKind>(
      accountId: number,
      kind: K,
      query: ListQuery = { includeDeleted: false },
    ): Promise<SnapshotContents<RecordsByKind[K]>> {
      return store.list(accountId, kind, query).then(readAll);
    }

    describe('accounts and tokens', () => {
      it('creates an account with default settings and finds it by name and id', async () => {
        const before = nowMicros();
        const account = await store.createAccount({
          username: 'Alice.B@example',
          passwordHash: 'argon2-hash',
          timezone: 'Asia/Shanghai',
        });
        expect(account).toMatchObject({
          username: 'Alice.B@example',
          nickname: 'Alice.B@example',
          timezone: 'Asia/Shanghai',
          language: 'en',
          weekStart: 1,
          disabled: false,
        });
        expect(Number.isSafeInteger(account.id)).toBe(true);
        expect(account.created).toBe(account.updated);
        expect(account.created).toBeGreaterThanOrEqual(before);
        expect(account.created).toBeLessThanOrEqual(nowMicros());
        expect(await store.findAccount('Alice.B@example')).toEqual(account);
        expect(await store.getAccount(account.id)).toEqual(account);
        expect(await store.findAccount('alice.b@example')).toBeUndefined();
        expect(await store.getAccount(account.id + 1000)).toBeUndefined();
      });

      it('refuses a username that is taken', async () => {
        await store.createAccount({ username: 'bob', passwordHash: null, timezone: 'UTC' });
        const clash = store.createAccount({ username: 'bob', passwordHash: 'other', timezone: 'Europe/Berlin' });
        await expect(clash).rejects.toBeInstanceOf(UsernameTakenError);
        await expect(clash).rejects.toMatchObject({ username: 'bob' });
        expect((await store.findAccount('bob'))?.timezone).toBe('UTC');
      });

      it('disables and enables an account by username', async () => {
        const id = await newAccountId();
        const username = `user-${accounts}`;
        expect(await store.setDisabled(username, true)).toBe(true);
        expect((await store.getAccount(id))?.disabled).toBe(true);
        expect(await store.setDisabled(username, false)).toBe(true);
        expect((await store.findAccount(username))?.disabled).toBe(false);
        expect(await store.setDisabled('nobody', true)).toBe(false);
      });

      it('updates only the settings given and moves `updated` forward', async () => {
        const id = await newAccountId();
        const before = await store.getAccount(id);
        const changed = await store.updateSettings(id, { nickname: '小明 🐉', weekStart: 0 });
        expect(changed).toEqual({
          ...before,
          nickname: '小明 🐉',
          weekStart: 0,
          updated: changed.updated,
        });
        expect(changed.updated).toBeGreaterThan(before?.updated ?? Number.POSITIVE_INFINITY);
        const again = await store.updateSettings(id, { timezone: 'America/New_York', language: 'zh' });
        expect(again).toMatchObject({
          nickname: '小明 🐉',
          weekStart: 0,
          timezone: 'America/New_York',
          language: 'zh',
        });
        expect(again.updated).toBeGreaterThan(changed.updated);
        expect(again.created).toBe(before?.created);
        expect(await store.getAccount(id)).toEqual(again);
        await expect(store.updateSettings(id + 1000, { nickname: 'x' })).rejects.toThrow();
      });

      it('finds a token with its account, scope and expiry, and revokes it', async () => {
        const id = await newAccountId();
        const hash = 'ab'.repeat(32);
        const expiresAt = nowMicros() + MICROS_PER_DAY;
        await store.insertToken({ hash, accountId: id, scope: 'read', name: 'phone 📱', expiresAt });
        const { head, ...grant } = (await store.findToken({ hash, accountId: id })) ?? {};
        expect(grant).toEqual({ account: await store.getAccount(id), scope: 'read', expiresAt, revoked: false });
        // PostgreSQL reads the account's head with the token (a round trip saved); SQLite does not.
        expect(head).toEqual(store.engine === 'postgres' ? await store.head(id) : undefined);

        await store.insertToken({ hash: 'cd'.repeat(32), accountId: id, scope: 'write', name: '', expiresAt: null });
        expect(await store.findToken({ hash: 'cd'.repeat(32), accountId: id })).toMatchObject({
          scope: 'write',
          expiresAt: null,
          revoked: false,
        });

        expect(await store.revokeToken({ hash, accountId: id })).toBe(true);
        expect((await store.findToken({ hash, accountId: id }))?.revoked).toBe(true);
        expect((await store.findToken({ hash: 'cd'.repeat(32), accountId: id }))?.revoked).toBe(false);
        expect(await store.revokeToken({ hash: 'ef'.repeat(32), accountId: id })).toBe(false);
        expect(await store.findToken({ hash: 'ef'.repeat(32), accountId: id })).toBeUndefined();
      });

      it("shows the account's current state through its token", async () => {
        const id = await newAccountId();
        const hash = '01'.repeat(32);
        await store.insertToken({ hash, accountId: id, scope: 'write', name: 'cli', expiresAt: null });
        await store.setDisabled(`user-${accounts}`, true);
        expect((await store.findToken({ hash, accountId: id }))?.account).toMatchObject({ id, disabled: true });
        await store.write(id, (w) => w.put('task', taskDraft('seen-through-token')));
        const head = (await store.findToken({ hash, accountId: id }))?.head;
        if (store.engine === 'postgres') expect(head).toEqual({ rev: 1, purgedRev: 0 });
        else expect(head).toBeUndefined();
      });

      it('answers a ping', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });

    describe('writing and reading records', () => {
      it('round-trips every task field', async () => {
        const accountId = await newAccountId();
        const draft = taskDraft('task-1', {
          title: 'Write the report',
          notes: 'line one\nline two\t"quoted" <b>&amp;</b> \'single\'',
          attribute: 'waiting',
          allDay: true,
          startAt: 1_767_225_600_000_000,
          endAt: 1_767_312_000_000_000,
          completed: 1_767_398_400_123_456,
          trashed: 1_767_400_000_000_001,
          deleted: 1_767_500_000_000_002,
          project: { id: 'p-1', name: 'Work' },
          context: { id: 'c-1', name: '@office' },
          tags: ['urgent', 'q3', '标签'],
          priority: 3,
          repeater: 'FREQ=WEEKLY;BYDAY=MO,WE',
          icalExtras: 'X-OTHER-APP-COLOR:#ff8800\r\nGEO:37.386013;-122.082932\r\nLOCATION:Caf\u00e9\\, upstairs\r\n',
        });
        const before = nowMicros();
        const written = await store.write(accountId, (tx) => tx.put('task', draft));
        expect(written).toEqual({ ...draft, created: written.updated, updated: written.updated, rev: 1 });
        expect(written.updated).toBeGreaterThanOrEqual(before);
        expect(written.updated).toBeLessThanOrEqual(nowMicros());
        expect(await store.get(accountId, 'task', 'task-1')).toEqual(written);
      });

      it('round-trips nulls, empty text and an empty tag list', async () => {
        const accountId = await newAccountId();
        const draft = taskDraft('a-Z_0-9+/=.', { title: 'x', notes: '' });
        const written = await store.write(accountId, (tx) => tx.put('task', draft));
        const read = await store.get(accountId, 'task', 'a-Z_0-9+/=.');
        expect(read).toEqual(written);
        expect(read).toMatchObject({
          notes: '',
          startAt: null,
          endAt: null,
          completed: null,
          trashed: null,
          deleted: null,
          project: null,
          context: null,
          tags: [],
          repeater: null,
          icalExtras: '',
          allDay: false,
          priority: 0,
          attribute: 'inbox',
        });
      });

      it('keeps unicode text exactly: emoji, CJK, combining marks', async () => {
        const accountId = await newAccountId();
        const texts = {
          emoji: '👩‍👩‍👧‍👦 family, 🇺🇳 flag, 👍🏽 tone',
          cjk: '中文 日本語 한국어',
          combining: 'e\u0301 vs \u00e9, n\u0303, Z\u0351\u0352\u0353',
          astral: '𝕏 𠀋 \u{10FFFF}',
        };
        const draft = taskDraft('unicode', {
          title: texts.emoji,
          notes: Object.values(texts).join('\n'),
          tags: Object.values(texts),
          project: { id: 'p', name: texts.cjk },
          context: { id: 'c', name: texts.combining },
          repeater: texts.astral,
        });
        await store.write(accountId, async (tx) => {
          await tx.put('project', projectDraft('p', { name: texts.cjk, notes: texts.emoji }));
          await tx.put('context', contextDraft('c', { name: texts.combining }));
          return tx.put('task', draft);
        });
        const task = await store.get(accountId, 'task', 'unicode');
        expect(task?.title).toBe(texts.emoji);
        expect(task?.notes).toBe(draft.notes);
        expect(task?.tags).toEqual(Object.values(texts));
        expect(task?.project).toEqual({ id: 'p', name: texts.cjk });
        expect(task?.context?.name).toBe(texts.combining);
        // Not normalized: the combining sequence stays two code points.
        expect(task?.context?.name.normalize('NFC')).not.toBe(texts.combining);
        expect(task?.repeater).toBe(texts.astral);
        expect((await store.get(accountId, 'project', 'p'))?.notes).toBe(texts.emoji);
        expect((await tx(store, accountId, (t) => t.findLive('context', texts.combining)))?.id).toBe('c');
      });

      it('round-trips projects and contexts', async () => {
        const accountId = await newAccountId();
        const project = projectDraft('p-1', { name: 'Home', notes: 'fix the roof', archived: 1_700_000_000_000_000 });
        const context = contextDraft('c-1', { name: '@phone' });
        const [savedProject, savedContext] = await store.write(accountId, async (t) => [
          await t.put('project', project),
          await t.put('context', context),
        ]);
        expect(savedProject).toEqual({
          ...project,
          created: savedProject?.updated,
          updated: savedProject?.updated,
          rev: 1,
        });
        expect(savedContext).toEqual({
          ...context,
          created: savedContext?.updated,
          updated: savedContext?.updated,
          rev: 2,
        });
        expect(await store.get(accountId, 'project', 'p-1')).toEqual(savedProject);
        expect(await store.get(accountId, 'context', 'c-1')).toEqual(savedContext);
        expect(await store.get(accountId, 'project', 'c-1')).toBeUndefined();
        expect(await store.get(accountId, 'task', 'p-1')).toBeUndefined();
      });

      it('gives the puts of one write consecutive revs and reads its own writes', async () => {
        const accountId = await newAccountId();
        await store.write(accountId, (t) => t.put('task', taskDraft('first')));
        const revs = await store.write(accountId, async (t) => {
          const task = await t.put('task', taskDraft('a'));
          const project = await t.put('project', projectDraft('p'));
          const context = await t.put('context', contextDraft('c'));
          const updated = await t.put('task', taskDraft('a', { title: 'a again' }));
          expect(await t.get('task', 'a')).toEqual(updated);
          expect(await t.get('project', 'p')).toEqual(project);
          expect(await t.get('context', 'c')).toEqual(context);
          expect(await t.get('task', 'missing')).toBeUndefined();
          return [task.rev, project.rev, context.rev, updated.rev];
        });
        expect(revs).toEqual([2, 3, 4, 5]);
        expect((await listAll(accountId, 'task')).headRev).toBe(5);
      });

      it('keeps `updated` strictly increasing over 1000 puts in one write, close to the clock', async () => {
        const accountId = await newAccountId();
        const written = await store.write(accountId, async (t) => {
          const tasks: Task[] = [];
          for (let i = 0; i < 1000; i += 1) tasks.push(await t.put('task', taskDraft(`t${i}`)));
          return tasks;
        });
        for (let i = 1; i < written.length; i += 1) {
          expect(written[i]?.updated).toBeGreaterThan(written[i - 1]?.updated ?? Number.POSITIVE_INFINITY);
          expect(written[i]?.rev).toBe(i + 1);
        }
        // max(now, previous + 1 µs): never ahead of the clock by more than one µs per put.
        expect(written.at(-1)?.updated).toBeLessThanOrEqual(nowMicros() + 1000);
        const next = await store.write(accountId, (t) => t.put('task', taskDraft('after')));
        expect(next.updated).toBeGreaterThan(written.at(-1)?.updated ?? Number.POSITIVE_INFINITY);
        expect(next.rev).toBe(1001);
      });

      it('keeps `created` on update and moves `updated` and `rev`', async () => {
        const accountId = await newAccountId();
        const first = await store.write(accountId, (t) => t.put('task', taskDraft('t', { title: 'one' })));
        const second = await store.write(accountId, (t) =>
          t.put('task', taskDraft('t', { title: 'two', priority: 2 })),
        );
        expect(second.created).toBe(first.created);
        expect(second.updated).toBeGreaterThan(first.updated);
        expect(second.rev).toBe(first.rev + 1);
        expect(await store.get(accountId, 'task', 't')).toMatchObject({
          title: 'two',
          priority: 2,
          created: first.created,
        });

        const project = await store.write(accountId, (t) => t.put('project', projectDraft('p', { name: 'A' })));
        const renamed = await store.write(accountId, (t) => t.put('project', projectDraft('p', { name: 'B' })));
        expect(renamed).toMatchObject({ name: 'B', created: project.created, rev: project.rev + 1 });
        const context = await store.write(accountId, (t) => t.put('context', contextDraft('c', { name: 'A' })));
        const deleted = await store.write(accountId, (t) =>
          t.put('context', contextDraft('c', { deleted: nowMicros() })),
        );
        expect(deleted.created).toBe(context.created);
        expect(deleted.deleted).not.toBeNull();
      });

      it('rolls everything back when the work throws', async () => {
        const accountId = await newAccountId();
        const kept = await store.write(accountId, (t) => t.put('task', taskDraft('kept', { title: 'before' })));
        const failure = new Error('work failed');
        await expect(
          store.write(accountId, async (t) => {
            await t.put('task', taskDraft('kept', { title: 'changed' }));
            await t.put('task', taskDraft('new'));
            await t.put('project', projectDraft('p'));
            await t.put('context', contextDraft('c'));
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await store.get(accountId, 'task', 'kept')).toEqual(kept);
        expect(await store.get(accountId, 'task', 'new')).toBeUndefined();
        expect(await store.get(accountId, 'project', 'p')).toBeUndefined();
        expect(await store.get(accountId, 'context', 'c')).toBeUndefined();
        const listed = await listAll(accountId, 'task', { includeDeleted: true });
        expect(listed.headRev).toBe(kept.rev);
        expect(listed.records).toEqual([kept]);
        const next = await store.write(accountId, (t) => t.put('task', taskDraft('next')));
        expect(next.rev).toBe(kept.rev + 1);
      });

      it('keeps uncommitted writes invisible to readers until the commit', async () => {
        const accountId = await newAccountId();
        await store.write(accountId, async (t) => {
          await t.put('task', taskDraft('pending'));
          expect(await store.get(accountId, 'task', 'pending')).toBeUndefined();
          expect((await listAll(accountId, 'task')).headRev).toBe(0);
        });
        expect(await store.get(accountId, 'task', 'pending')).toBeDefined();
      });

      it('refuses to write for an account that does not exist', async () => {
        const accountId = await newAccountId();
        await expect(store.write(accountId + 1000, (t) => t.put('task', taskDraft('x')))).rejects.toThrow();
        expect((await store.write(accountId, (t) => t.put('task', taskDraft('x')))).rev).toBe(1);
      });

      it('keeps accounts apart: the same id in two accounts is two records', async () => {
        const alice = await newAccountId();
        const bob = await newAccountId();
        const ofAlice = await store.write(alice, async (t) => {
          await t.put('project', projectDraft('p', { name: 'Shared name' }));
          return t.put('task', taskDraft('same', { title: 'alice' }));
        });
        const ofBob = await store.write(bob, async (t) => {
          expect(await t.get('task', 'same')).toBeUndefined();
          expect(await t.get('project', 'p')).toBeUndefined();
          expect(await t.findLive('project', 'Shared name')).toBeUndefined();
          await t.put('project', projectDraft('p', { name: 'Shared name' }));
          return t.put('task', taskDraft('same', { title: 'bob', project: { id: 'p', name: 'Shared name' } }));
        });
        expect(ofAlice.rev).toBe(2);
        expect(ofBob.rev).toBe(2);
        expect(await store.get(alice, 'task', 'same')).toEqual(ofAlice);
        expect(await store.get(bob, 'task', 'same')).toEqual(ofBob);
        expect((await listAll(alice, 'task')).records).toEqual([ofAlice]);
        expect((await listAll(bob, 'task')).records).toEqual([ofBob]);
        expect(await tx(store, alice, (t) => t.withLabel('project', 'p'))).toEqual([]);
        expect(await tx(store, bob, (t) => t.withLabel('project', 'p'))).toEqual([ofBob]);

        const alone = await newAccountId();
        expect(await store.get(alone, 'task', 'same')).toBeUndefined();
        const listed = await listAll(alone, 'project', { includeDeleted: true });
        expect(listed).toEqual({ headRev: 0, purgedRev: 0, purgedUpdated: 0, records: [], batches: 0 });
      });

      it('gives concurrent writes of one account distinct consecutive revs', async () => {
        const accountId = await newAccountId();
        const writes = Array.from({ length: 20 }, (_, w) =>
          store.write(accountId, async (t) => {
            const revs: number[] = [];
            for (let i = 0; i < 3; i += 1) {
              // Yield between puts, so the writes would interleave if nothing kept them apart.
              await new Promise((resolve) => setImmediate(resolve));
              revs.push((await t.put('task', taskDraft(`w${w}-${i}`))).rev);
            }
            return revs;
          }),
        );
        const revsPerWrite = await Promise.all(writes);
        for (const revs of revsPerWrite) expect(revs).toEqual([revs[0], (revs[0] ?? 0) + 1, (revs[0] ?? 0) + 2]);
        const all = revsPerWrite.flat().sort((a, b) => a - b);
        expect(all).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
        const listed = await listAll(accountId, 'task');
        expect(listed.headRev).toBe(60);
        expect(listed.records).toHaveLength(60);
      });
    });

    describe('listing', () => {
      /** Tasks a..e, then b updated and c deleted: live order by rev is a, d, e, b. */
      async function seed(accountId: number): Promise<Record<string, Task>> {
        const byId: Record<string, Task> = {};
        await store.write(accountId, async (t) => {
          for (const id of ['a', 'b', 'c', 'd', 'e']) byId[id] = await t.put('task', taskDraft(id));
        });
        byId.b = await store.write(accountId, (t) => t.put('task', taskDraft('b', { title: 'b changed' })));
        byId.c = await store.write(accountId, (t) => t.put('task', taskDraft('c', { deleted: nowMicros() })));
        return byId;
      }

      it('lists live records in ascending rev with the head rev', async () => {
        const accountId = await newAccountId();
        const t = await seed(accountId);
        const listed = await listAll(accountId, 'task');
        expect(listed.records).toEqual([t.a, t.d, t.e, t.b]);
        expect(listed.headRev).toBe(7);
        expect(listed.purgedRev).toBe(0);
        expect(listed.purgedUpdated).toBe(0);
      });

      it('lists tombstones only when asked, and gets them by id', async () => {
        const accountId = await newAccountId();
        const t = await seed(accountId);
        expect((await listAll(accountId, 'task', { includeDeleted: true })).records).toEqual([t.a, t.d, t.e, t.b, t.c]);
        expect(await store.get(accountId, 'task', 'c')).toEqual(t.c);
        expect(t.c?.deleted).not.toBeNull();
      });

      it('lists changes after a rev, nothing twice and nothing missed', async () => {
        const accountId = await newAccountId();
        const t = await seed(accountId);
        expect((await listAll(accountId, 'task', { includeDeleted: true, afterRev: 5 })).records).toEqual([t.b, t.c]);
        expect((await listAll(accountId, 'task', { includeDeleted: false, afterRev: 5 })).records).toEqual([t.b]);
        const everything = await listAll(accountId, 'task', { includeDeleted: true });

        const f = await store.write(accountId, (w) => w.put('task', taskDraft('f')));
        const a = await store.write(accountId, (w) => w.put('task', taskDraft('a', { completed: nowMicros() })));
        const d = await store.write(accountId, (w) => w.put('task', taskDraft('d', { deleted: nowMicros() })));
        const since = await listAll(accountId, 'task', { includeDeleted: true, afterRev: everything.headRev });
        expect(since.records).toEqual([f, a, d]);
        expect(since.headRev).toBe(d.rev);
        const nothingNew = await listAll(accountId, 'task', { includeDeleted: true, afterRev: since.headRev });
        expect(nothingNew.records).toEqual([]);
        expect(nothingNew.headRev).toBe(since.headRev);
      });

      it('lists records updated strictly after a moment', async () => {
        const accountId = await newAccountId();
        const t = await seed(accountId);
        const after = (moment: Micros, includeDeleted: boolean) =>
          listAll(accountId, 'task', { includeDeleted, updatedAfter: moment }).then((listed) => listed.records);
        expect(await after(t.e?.updated ?? 0, true)).toEqual([t.b, t.c]);
        expect(await after((t.e?.updated ?? 0) - 1, true)).toEqual([t.e, t.b, t.c]);
        expect(await after(t.e?.updated ?? 0, false)).toEqual([t.b]);
        expect(await after(t.c?.updated ?? 0, true)).toEqual([]);
        expect(await after(0, true)).toEqual([t.a, t.d, t.e, t.b, t.c]);
        // Both bounds at once: each must hold.
        const both = await listAll(accountId, 'task', { includeDeleted: true, afterRev: 6, updatedAfter: 0 });
        expect(both.records).toEqual([t.c]);
      });

      it('cuts the answer at the limit, in ascending rev', async () => {
        const accountId = await newAccountId();
        const t = await seed(accountId);
        expect((await listAll(accountId, 'task', { includeDeleted: false, limit: 2 })).records).toEqual([t.a, t.d]);
        expect((await listAll(accountId, 'task', { includeDeleted: true, limit: 5 })).records).toHaveLength(5);
        expect((await listAll(accountId, 'task', { includeDeleted: true, limit: 100 })).records).toHaveLength(5);
        const page = await listAll(accountId, 'task', { includeDeleted: true, afterRev: 4, limit: 2 });
        expect(page.records).toEqual([t.e, t.b]);
        expect(page.headRev).toBe(7);
        const byTime = await listAll(accountId, 'task', { includeDeleted: true, updatedAfter: 0, limit: 1 });
        expect(byTime.records).toEqual([t.a]);
      });

      it('lists projects and contexts like tasks', async () => {
        const accountId = await newAccountId();
        const [p1, c1, p2] = await store.write(accountId, async (w) => [
          await w.put('project', projectDraft('p1')),
          await w.put('context', contextDraft('c1')),
          await w.put('project', projectDraft('p2')),
        ]);
        const p1Deleted = await store.write(accountId, (w) =>
          w.put('project', projectDraft('p1', { deleted: nowMicros() })),
        );
        expect((await listAll(accountId, 'project')).records).toEqual([p2]);
        expect((await listAll(accountId, 'project', { includeDeleted: true })).records).toEqual([p2, p1Deleted]);
        expect((await listAll(accountId, 'context')).records).toEqual([c1]);
        expect((await listAll(accountId, 'project', { includeDeleted: true, afterRev: p2?.rev ?? 0 })).records).toEqual(
          [p1Deleted],
        );
        expect(p1?.rev).toBe(1);
        expect((await listAll(accountId, 'context')).headRev).toBe(4);
      });

      it('reads a small listing from the snapshot it was opened on', async () => {
        const accountId = await newAccountId();
        const t = await seed(accountId);
        const snapshot = await store.list(accountId, 'task', { includeDeleted: true, limit: 3 });
        try {
          await store.write(accountId, async (w) => {
            await w.put('task', taskDraft('a', { title: 'a changed later' }));
            await w.put('task', taskDraft('z'));
          });
          expect(snapshot.headRev).toBe(7);
          const { records } = await readAll(snapshot);
          expect(records).toEqual([t.a, t.d, t.e]);
        } finally {
          await snapshot.close();
        }
      });

      it('reads a large listing, batch by batch, from the snapshot it was opened on', async () => {
        const accountId = await newAccountId();
        const original = await putTasks(accountId, 3000);
        const snapshot = await store.list(accountId, 'task', { includeDeleted: false });
        try {
          const first = await snapshot.nextBatch();
          expect(first?.length).toBeGreaterThan(0);
          // Another transaction changes what the listing has not reached yet, and adds more.
          await store.write(accountId, async (w) => {
            await w.put('task', taskDraft('t2999', { title: 'changed' }));
            await w.put('task', taskDraft('t2500', { deleted: nowMicros() }));
            await w.put('task', taskDraft('t0', { title: 'already read, changed' }));
            await w.put('task', taskDraft('new'));
          });
          expect(snapshot.headRev).toBe(3000);
          const rest = await readAll(snapshot);
          expect([...(first ?? []), ...rest.records]).toEqual(original);
          expect((await listAll(accountId, 'task')).headRev).toBe(3004);
        } finally {
          await snapshot.close();
        }
      });

      it('streams 5,000 tasks in batches, whole or up to a limit', async () => {
        const accountId = await newAccountId();
        const original = await putTasks(accountId, 5000);
        const whole = await listAll(accountId, 'task');
        expect(whole.batches).toBeGreaterThan(1);
        expect(whole.records).toEqual(original);
        expect(whole.headRev).toBe(5000);

        const limited = await listAll(accountId, 'task', { includeDeleted: true, limit: 4321 });
        expect(limited.batches).toBeGreaterThan(1);
        expect(limited.records).toEqual(original.slice(0, 4321));

        const tail = await listAll(accountId, 'task', { includeDeleted: true, afterRev: 4000, limit: 700 });
        expect(tail.records).toEqual(original.slice(4000, 4700));
        const recent = await listAll(accountId, 'task', {
          includeDeleted: true,
          updatedAfter: original[3999]?.updated ?? 0,
        });
        expect(recent.records).toEqual(original.slice(4000));
      });

      it('lets a listing stop early and close', async () => {
        const accountId = await newAccountId();
        await putTasks(accountId, 2000);
        const snapshot = await store.list(accountId, 'task', { includeDeleted: false });
        expect((await snapshot.nextBatch())?.length).toBeGreaterThan(0);
        await snapshot.close();
        const next = await store.write(accountId, (w) => w.put('task', taskDraft('after')));
        expect(next.rev).toBe(2001);
        const unopened = await store.list(accountId, 'task', { includeDeleted: false });
        await unopened.close();
        expect((await listAll(accountId, 'task')).records).toHaveLength(2001);
      });

      async function putTasks(accountId: number, count: number): Promise<Task[]> {
        const tasks: Task[] = [];
        for (let start = 0; start < count; start += 1000) {
          const chunk = await store.write(accountId, async (w) => {
            const written: Task[] = [];
            for (let i = start; i < Math.min(count, start + 1000); i += 1) {
              written.push(await w.put('task', taskDraft(`t${i}`, { tags: [`tag ${i}`], notes: 'n'.repeat(i % 50) })));
            }
            return written;
          });
          tasks.push(...chunk);
        }
        return tasks;
      }
    });

    describe('purging tombstones', () => {
      const LONG_AGO = 1_000_000_000_000_000;
      const LATER = 1_500_000_000_000_000;

      /**
       * A store whose clock the test sets: a tombstone's age is the server's time of its
       * deletion (its `updated`), whatever `deleted` the client sent.
       */
      async function withClock(
        test: (clocked: Store, setClock: (micros: Micros) => void) => Promise<void>,
      ): Promise<void> {
        let now = LONG_AGO;
        const opened = await open({ clock: () => now });
        try {
          await opened.store.migrate();
          await test(opened.store, (micros) => (now = micros));
        } finally {
          await opened.cleanup();
        }
      }

      async function accountOf(clocked: Store, username: string): Promise<number> {
        return (await clocked.createAccount({ username, passwordHash: null, timezone: 'UTC' })).id;
      }

      it('removes tombstones deleted before the bound and records how far it purged', async () => {
        await withClock(async (clocked, setClock) => {
          const accountId = await accountOf(clocked, 'purged');
          const other = await accountOf(clocked, 'other');
          const old = await clocked.write(accountId, async (w) => ({
            oldTask: await w.put('task', taskDraft('old', { deleted: LONG_AGO })),
            live: await w.put('task', taskDraft('live')),
            oldProject: await w.put('project', projectDraft('p-old', { deleted: LONG_AGO + 1 })),
            oldContext: await w.put('context', contextDraft('c-old', { deleted: LONG_AGO + 2 })),
          }));
          const otherTomb = await clocked.write(other, (w) =>
            w.put('task', taskDraft('other-old', { deleted: LONG_AGO })),
          );
          setClock(LATER);
          const recent = await clocked.write(accountId, async (w) => ({
            recentTask: await w.put('task', taskDraft('recent', { deleted: LATER })),
            liveProject: await w.put('project', projectDraft('p-live')),
          }));

          expect(await clocked.purge(LONG_AGO)).toBe(0);
          expect(await clocked.purge(LONG_AGO + 1000)).toBe(4);

          expect(await clocked.get(accountId, 'task', 'old')).toBeUndefined();
          expect(await clocked.get(accountId, 'project', 'p-old')).toBeUndefined();
          expect(await clocked.get(accountId, 'context', 'c-old')).toBeUndefined();
          expect(await clocked.get(accountId, 'task', 'recent')).toEqual(recent.recentTask);
          expect(await clocked.get(accountId, 'task', 'live')).toEqual(old.live);
          expect(await clocked.get(accountId, 'project', 'p-live')).toEqual(recent.liveProject);
          expect(await clocked.get(other, 'task', 'other-old')).toBeUndefined();

          for (const kind of ['task', 'project', 'context'] as const) {
            const listed = await readAll(await clocked.list(accountId, kind, { includeDeleted: true }));
            expect(listed.purgedRev).toBe(old.oldContext.rev);
            expect(listed.purgedUpdated).toBe(old.oldContext.updated);
            expect(listed.headRev).toBe(recent.liveProject.rev);
          }
          const ofOther = await readAll(await clocked.list(other, 'task', { includeDeleted: true }));
          expect(ofOther).toMatchObject({ purgedRev: otherTomb.rev, purgedUpdated: otherTomb.updated, records: [] });
        });
      });

      it('keeps the deletion of a purged tombstone for a hook not past it yet', async () => {
        await withClock(async (clocked, setClock) => {
          const accountId = await accountOf(clocked, 'hooked');
          const hook = await clocked.webhooks.insert(
            accountId,
            { id: 'h', url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: 1 },
            20,
          );
          expect(hook).not.toBe('full');
          const gone = await clocked.write(accountId, (w) =>
            w.put('task', taskDraft('gone', { title: 'gone', deleted: LONG_AGO })),
          );
          setClock(LATER);
          expect(await clocked.purge(LONG_AGO + 1000)).toBe(1);
          const events = await clocked.webhooks.events(accountId, 0, 10);
          expect(events.map((event) => [event.type, event.rev])).toEqual([['task.deleted', gone.rev]]);
          expect(events[0]?.record).toEqual(gone);
        });
      });

      it("purges by the server's time of deletion, not a backdated `deleted` (issue #16)", async () => {
        await withClock(async (clocked, setClock) => {
          const accountId = await accountOf(clocked, 'backdated');
          setClock(LATER);
          // Deleted now, claiming a deletion long ago: other devices' cursors must not expire yet.
          const backdated = await clocked.write(accountId, (w) =>
            w.put('task', taskDraft('backdated', { deleted: LONG_AGO })),
          );
          expect(await clocked.purge(LONG_AGO + 1000)).toBe(0);
          expect(await clocked.get(accountId, 'task', 'backdated')).toEqual(backdated);
          expect(await clocked.head(accountId)).toEqual({ rev: backdated.rev, purgedRev: 0 });
          expect(await clocked.purge(LATER + 1)).toBe(1);
        });
      });

      it('keeps what an account stores, records and UTF-8 bytes of text, through updates and purges', async () => {
        await withClock(async (clocked, setClock) => {
          const accountId = await accountOf(clocked, 'usage');
          const usage = (): Promise<{ records: number; bytes: number }> => clocked.write(accountId, (w) => w.usage());
          expect(await usage()).toEqual({ records: 0, bytes: 0 });
          await clocked.write(accountId, async (w) => {
            await w.put('task', taskDraft('a', { title: 'ab', notes: 'é' }));
            await w.put('project', projectDraft('p', { name: 'P', notes: 'nn' }));
            await w.put('context', contextDraft('c', { name: '@c' }));
            // Inside the transaction, its own writes count.
            expect(await w.usage()).toEqual({ records: 3, bytes: 2 + 2 + 1 + 2 + 2 });
          });
          await clocked.write(accountId, (w) => w.put('task', taskDraft('a', { title: 'abc', notes: '', deleted: 1 })));
          expect(await usage()).toEqual({ records: 3, bytes: 3 + 1 + 2 + 2 });
          setClock(LATER);
          expect(await clocked.purge(LONG_AGO + 1000)).toBe(1);
          expect(await usage()).toEqual({ records: 2, bytes: 1 + 2 + 2 });
        });
      });

      it("counts a task's kept iCalendar properties among its UTF-8 bytes of text, as notes (issue #14)", async () => {
        const accountId = await newAccountId();
        const usage = (): Promise<{ records: number; bytes: number }> => store.write(accountId, (w) => w.usage());
        // 'X-A:é\r\n' is 8 bytes: é is two.
        await store.write(accountId, (w) => w.put('task', taskDraft('a', { title: 'ab', icalExtras: 'X-A:é\r\n' })));
        expect(await usage()).toEqual({ records: 1, bytes: 2 + 8 });
        // A change of the kept properties alone counts too.
        await store.write(accountId, (w) =>
          w.put('task', taskDraft('a', { title: 'ab', icalExtras: 'X-A:é\r\nX-B:1\r\n' })),
        );
        expect(await usage()).toEqual({ records: 1, bytes: 2 + 8 + 7 });
        await store.write(accountId, (w) => w.put('task', taskDraft('a', { title: 'ab', icalExtras: '' })));
        expect(await usage()).toEqual({ records: 1, bytes: 2 });
      });

      it("counts, for every kind, the UTF-8 bytes of exactly its description's countedText", async () => {
        const check = async <K extends SyncKind>(kind: K): Promise<void> => {
          const accountId = await newAccountId();
          for (const text of ['é1', 'ab€', '']) {
            const draft = TEXT_EVERYWHERE[kind](text);
            await store.write(accountId, (w) => w.put(kind, draft));
            const usage = await store.write(accountId, (w) => w.usage());
            expect({ kind, ...usage }).toEqual({ kind, records: 1, bytes: countedBytes(kind, draft) });
          }
        };
        for (const kind of SYNC_KINDS) await check(kind);
      });

      it('raises the purge marks with each purge and never moves them back', async () => {
        await withClock(async (clocked, setClock) => {
          const accountId = await accountOf(clocked, 'marks');
          // The first tombstone is touched again later, so the server deleted it last.
          const first = await clocked.write(accountId, async (w) => [
            await w.put('task', taskDraft('low-rev', { deleted: LONG_AGO })),
            await w.put('task', taskDraft('high-rev', { deleted: LONG_AGO })),
          ]);
          setClock(LATER);
          const deletedLater = await clocked.write(accountId, (w) =>
            w.put('task', taskDraft('low-rev', { deleted: LATER })),
          );
          const deletedFirst = first[1];
          expect(await clocked.purge(LONG_AGO + 1000)).toBe(1);
          let listed = await readAll(await clocked.list(accountId, 'task', { includeDeleted: true }));
          expect(listed).toMatchObject({ purgedRev: deletedFirst?.rev, purgedUpdated: deletedFirst?.updated });
          expect(await clocked.purge(LATER + 1)).toBe(1);
          listed = await readAll(await clocked.list(accountId, 'task', { includeDeleted: true }));
          expect(listed).toMatchObject({ purgedRev: deletedLater.rev, purgedUpdated: deletedLater.updated });
          expect(listed.records).toEqual([]);
          expect(await clocked.purge(LONG_AGO + 1000)).toBe(0);
          expect(await clocked.head(accountId)).toEqual({ rev: deletedLater.rev, purgedRev: deletedLater.rev });
        });
      });
    });

    describe('kept write outcomes', () => {
      /** An outcome as a use case returns it: records as stored, the zone, the shape. */
      function outcomeOf(records: readonly Task[], zone = 'Asia/Shanghai'): WriteOutcome<'task'> {
        return { kind: 'task', zone, many: true, records };
      }

      it('keeps an outcome with the writes it answers, per account, without taking a rev', async () => {
        const alice = await newAccountId();
        const bob = await newAccountId();
        const before = nowMicros();
        let outcome: WriteOutcome<'task'> | undefined;
        await store.write(alice, async (w) => {
          const stored = await w.put('task', taskDraft('t', { title: '答 & <b>', tags: ['x', 'y'], allDay: true }));
          outcome = outcomeOf([stored]);
          expect(await w.findKept('key-1')).toBeUndefined();
          await w.keep('key-1', 'hash-1', outcome);
          expect(await w.findKept('key-1')).toMatchObject({ requestHash: 'hash-1', outcome });
        });
        const kept = await tx(store, alice, (w) => w.findKept('key-1'));
        expect(kept).toEqual({ requestHash: 'hash-1', outcome, created: kept?.created });
        expect(kept?.created).toBeGreaterThanOrEqual(before);
        expect(kept?.created).toBeLessThanOrEqual(nowMicros());
        expect(await tx(store, bob, (w) => w.findKept('key-1'))).toBeUndefined();
        expect((await listAll(alice, 'task')).headRev).toBe(1);

        const replaced: WriteOutcome<'project'> = { kind: 'project', zone: 'UTC', many: false, records: [] };
        await store.write(alice, (w) => w.keep('key-1', 'hash-2', replaced));
        expect(await tx(store, alice, (w) => w.findKept('key-1'))).toMatchObject({
          requestHash: 'hash-2',
          outcome: replaced,
        });
        expect((await listAll(alice, 'task')).headRev).toBe(1);
      });

      it('drops the outcome when its transaction rolls back', async () => {
        const accountId = await newAccountId();
        await expect(
          store.write(accountId, async (w) => {
            const stored = await w.put('task', taskDraft('t'));
            await w.keep('key', 'hash', outcomeOf([stored]));
            throw new Error('failed after answering');
          }),
        ).rejects.toThrow('failed after answering');
        expect(await tx(store, accountId, (w) => w.findKept('key'))).toBeUndefined();
      });

      it('forgets outcomes kept before a moment, in every account', async () => {
        const alice = await newAccountId();
        const bob = await newAccountId();
        await store.write(alice, (w) => w.keep('old', 'h', outcomeOf([], 'UTC')));
        await store.write(bob, (w) => w.keep('old', 'h', outcomeOf([], 'UTC')));
        // A moment 15 ms clear of both sides, in case the engine stamps outcomes with its own clock.
        await new Promise((resolve) => setTimeout(resolve, 30));
        const between = nowMicros() - 15_000;
        await store.write(alice, (w) => w.keep('new', 'h', outcomeOf([], 'Europe/Berlin')));
        expect(await store.forgetKept(0)).toBe(0);
        expect(await store.forgetKept(between)).toBe(2);
        expect(await tx(store, alice, (w) => w.findKept('old'))).toBeUndefined();
        expect(await tx(store, bob, (w) => w.findKept('old'))).toBeUndefined();
        expect((await tx(store, alice, (w) => w.findKept('new')))?.outcome.zone).toBe('Europe/Berlin');
      });
    });

    describe('projects and contexts by name, tasks by label', () => {
      it('finds the live project or context with exactly that name', async () => {
        const accountId = await newAccountId();
        await store.write(accountId, async (w) => {
          await w.put('project', projectDraft('p-old', { name: 'Work', deleted: nowMicros() }));
          await w.put('project', projectDraft('p-new', { name: 'Work' }));
          await w.put('context', contextDraft('c', { name: '@home' }));
        });
        await tx(store, accountId, async (w) => {
          expect((await w.findLive('project', 'Work'))?.id).toBe('p-new');
          expect(await w.findLive('project', 'work')).toBeUndefined();
          expect(await w.findLive('project', 'Work ')).toBeUndefined();
          expect((await w.findLive('context', '@home'))?.id).toBe('c');
          expect(await w.findLive('context', 'Work')).toBeUndefined();
          expect(await w.findLive('project', '@home')).toBeUndefined();
        });
      });

      it('allows one live project or context per name; deleting one frees its name', async () => {
        const accountId = await newAccountId();
        await store.write(accountId, async (w) => {
          await w.put('project', projectDraft('p1', { name: 'Garden' }));
          await w.put('context', contextDraft('c1', { name: '@car' }));
        });
        await expect(
          store.write(accountId, (w) => w.put('project', projectDraft('p2', { name: 'Garden' }))),
        ).rejects.toThrow();
        await expect(
          store.write(accountId, (w) => w.put('context', contextDraft('c2', { name: '@car' }))),
        ).rejects.toThrow();
        expect(await store.get(accountId, 'project', 'p2')).toBeUndefined();
        expect((await listAll(accountId, 'project')).headRev).toBe(2);

        const reused = await store.write(accountId, async (w) => {
          await w.put('project', projectDraft('p1', { name: 'Garden', deleted: nowMicros() }));
          await w.put('context', contextDraft('c1', { name: '@car', deleted: nowMicros() }));
          await w.put('context', contextDraft('c2', { name: '@car' }));
          return w.put('project', projectDraft('p2', { name: 'Garden' }));
        });
        expect(reused.rev).toBe(6);
        // Renaming onto a free name and back works; a rename onto a taken name does not.
        await store.write(accountId, (w) => w.put('project', projectDraft('p3', { name: 'Other' })));
        await expect(
          store.write(accountId, (w) => w.put('project', projectDraft('p3', { name: 'Garden' }))),
        ).rejects.toThrow();
        // A deleted record may share its name with live ones.
        await store.write(accountId, (w) =>
          w.put('project', projectDraft('p1', { name: 'Other', deleted: nowMicros() })),
        );
      });

      it('finds the live tasks of a project or context', async () => {
        const accountId = await newAccountId();
        const work = { id: 'p-work', name: 'Work' };
        const home = { id: 'p-home', name: 'Home' };
        const phone = { id: 'c-phone', name: '@phone' };
        const tasks = await store.write(accountId, async (w) => {
          await w.put('project', projectDraft(work.id, { name: work.name }));
          await w.put('project', projectDraft(home.id, { name: home.name }));
          await w.put('context', contextDraft(phone.id, { name: phone.name }));
          return {
            call: await w.put('task', taskDraft('call', { project: work, context: phone })),
            mail: await w.put('task', taskDraft('mail', { project: work })),
            gone: await w.put('task', taskDraft('gone', { project: work, context: phone, deleted: nowMicros() })),
            paint: await w.put('task', taskDraft('paint', { project: home, context: phone })),
            loose: await w.put('task', taskDraft('loose')),
            done: await w.put(
              'task',
              taskDraft('done', { project: work, completed: nowMicros(), trashed: nowMicros() }),
            ),
          };
        });
        await tx(store, accountId, async (w) => {
          expect(byRev(await w.withLabel('project', work.id))).toEqual([tasks.call, tasks.mail, tasks.done]);
          expect(byRev(await w.withLabel('project', home.id))).toEqual([tasks.paint]);
          expect(byRev(await w.withLabel('context', phone.id))).toEqual([tasks.call, tasks.paint]);
          expect(byRev(await w.withLabel('context', work.id))).toEqual([]);
          expect(byRev(await w.withLabel('project', 'nothing'))).toEqual([]);
        });
        // Inside a write, the transaction's own changes count.
        await store.write(accountId, async (w) => {
          await w.put('task', taskDraft('call', { deleted: nowMicros() }));
          const moved = await w.put('task', taskDraft('loose', { project: work }));
          expect(byRev(await w.withLabel('project', work.id))).toEqual([tasks.mail, tasks.done, moved]);
        });
      });

      it("reads those of a label's live tasks not showing it yet, in rev order, up to a limit or all", async () => {
        const accountId = await newAccountId();
        const work = { id: 'p-work', name: 'Work' };
        const office = { id: 'p-work', name: 'Office' };
        const phone = { id: 'c-phone', name: '@phone' };
        const tasks = await store.write(accountId, async (w) => {
          await w.put('project', projectDraft(work.id, { name: work.name }));
          await w.put('context', contextDraft(phone.id, { name: phone.name }));
          return {
            call: await w.put('task', taskDraft('call', { project: work, context: phone })),
            mail: await w.put('task', taskDraft('mail', { project: work })),
            gone: await w.put('task', taskDraft('gone', { project: work, deleted: nowMicros() })),
            shown: await w.put('task', taskDraft('shown', { project: office, context: phone })),
            file: await w.put('task', taskDraft('file', { project: work })),
          };
        });
        await tx(store, accountId, async (w) => {
          const pending = (shown: typeof office | null, limit?: number) =>
            w.withLabel('project', work.id, { shown, ...(limit === undefined ? {} : { limit }) });
          expect(await pending(office, 10)).toEqual([tasks.call, tasks.mail, tasks.file]);
          expect(await pending(office, 2)).toEqual([tasks.call, tasks.mail]);
          expect(await pending(office)).toEqual([tasks.call, tasks.mail, tasks.file]);
          expect(await pending(work, 10)).toEqual([tasks.shown]);
          // Deleted: every live task that carries it.
          expect(await pending(null, 10)).toEqual([tasks.call, tasks.mail, tasks.shown, tasks.file]);
          expect(await pending(null)).toEqual([tasks.call, tasks.mail, tasks.shown, tasks.file]);
          expect(await w.withLabel('context', phone.id, { shown: { ...phone, name: '@mobile' }, limit: 10 })).toEqual([
            tasks.call,
            tasks.shown,
          ]);
        });
        // Inside a write, the transaction's own changes count.
        await store.write(accountId, async (w) => {
          const renamed = await w.put('task', taskDraft('mail', { project: office }));
          const added = await w.put('task', taskDraft('desk', { project: work }));
          const pending = await w.withLabel('project', work.id, { shown: office, limit: 10 });
          expect(pending).toEqual([tasks.call, tasks.file, added]);
          expect(pending).not.toContainEqual(renamed);
          expect(await w.withLabel('project', work.id, { shown: office })).toEqual(pending);
        });
      });
    });

    describe('subtasks and reminders (issue #22)', () => {
      it('keeps parent, order and reminders, and reads the live children of several parents at once', async () => {
        const accountId = await newAccountId();
        const other = await newAccountId();
        const reminders = [
          { id: 'r1', at: Date.UTC(2030, 0, 1) * 1000 },
          { id: 'r2', before: 15, of: 'end' as const },
        ];
        const tasks = await store.write(accountId, async (w) => ({
          top: await w.put('task', taskDraft('top', { sortOrder: -3, reminders })),
          a: await w.put('task', taskDraft('a', { parentId: 'top', sortOrder: 2 })),
          b: await w.put('task', taskDraft('b', { parentId: 'top' })),
          gone: await w.put('task', taskDraft('gone', { parentId: 'top', deleted: nowMicros() })),
          deep: await w.put('task', taskDraft('deep', { parentId: 'a' })),
        }));
        await store.write(other, (w) => w.put('task', taskDraft('theirs', { parentId: 'top' })));
        expect(await store.get(accountId, 'task', 'top')).toEqual(tasks.top);
        expect(tasks.top).toMatchObject({ sortOrder: -3, reminders, parentId: null });
        await tx(store, accountId, async (w) => {
          expect(byRev(await w.childrenOf(['top']))).toEqual([tasks.a, tasks.b]);
          expect(byRev(await w.childrenOf(['a', 'b', 'top']))).toEqual([tasks.a, tasks.b, tasks.deep]);
          expect(await w.childrenOf([])).toEqual([]);
        });
        // Inside a write, the transaction's own changes count.
        await store.write(accountId, async (w) => {
          await w.put('task', taskDraft('b', { parentId: null }));
          const moved = await w.put('task', taskDraft('deep', { parentId: 'top' }));
          const added = await w.put('task', taskDraft('new', { parentId: 'top' }));
          expect(byRev(await w.childrenOf(['top']))).toEqual([tasks.a, moved, added]);
        });
      });

      it('reads the reminders falling due across accounts, earliest first, up to a limit', async () => {
        const alice = await newAccountId();
        const bob = await newAccountId();
        const at = (minute: number): Micros => Date.UTC(2030, 0, 1, 9, minute) * 1000;
        await store.write(alice, async (w) => {
          await w.put('task', taskDraft('a1', { reminderDue: at(5) }));
          await w.put('task', taskDraft('a2', { reminderDue: at(1) }));
          await w.put('task', taskDraft('none'));
          await w.put('task', taskDraft('later', { reminderDue: at(30) }));
        });
        await store.write(bob, (w) => w.put('task', taskDraft('b1', { reminderDue: at(3) })));
        expect(await store.dueReminders(at(10), 100)).toEqual([
          { accountId: alice, taskId: 'a2', due: at(1) },
          { accountId: bob, taskId: 'b1', due: at(3) },
          { accountId: alice, taskId: 'a1', due: at(5) },
        ]);
        expect(await store.dueReminders(at(10), 2)).toHaveLength(2);
        expect(await store.dueReminders(at(0), 100)).toEqual([]);
        // A change that plans no reminder takes the task out of the read.
        await store.write(alice, (w) => w.put('task', taskDraft('a2')));
        expect((await store.dueReminders(at(10), 100)).map((due) => due.taskId)).toEqual(['b1', 'a1']);
      });
    });

    describe('the claim of a reminder firing', () => {
      it('moves the next reminder on once and stores it as reminder.due; a second claim of it fails', async () => {
        const accountId = await newAccountId();
        const at = (minute: number): Micros => Date.UTC(2030, 0, 1, 9, minute) * 1000;
        const hook = await store.webhooks.insert(
          accountId,
          { id: 'h', url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: at(0) },
          20,
        );
        expect(hook).not.toBe('full');
        const reminders = [
          { id: 'r1', at: at(5) },
          { id: 'r2', at: at(9) },
        ];
        const task = await store.write(accountId, (w) =>
          w.put('task', taskDraft('t', { reminders, reminderDue: at(5) })),
        );
        const firing = new ReminderService(store, () => at(6));
        const [due] = await firing.due(10);
        expect(due).toEqual({ accountId, taskId: 't', due: at(5) });
        if (due === undefined) return;
        const claims = await Promise.all([firing.claim(due), firing.claim(due)]);
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await firing.claim(due)).toBe(false);
        const fired = await store.get(accountId, 'task', 't');
        expect(fired).toMatchObject({ reminderDue: at(9), title: task.title, rev: task.rev + 1 });
        const events = await store.webhooks.events(accountId, 0, 10);
        expect(events.map((event) => [event.type, event.rev])).toEqual([
          ['task.created', task.rev],
          ['reminder.due', task.rev + 1],
        ]);
        // Any other change of the task is not a firing.
        await store.write(accountId, (w) =>
          w.put('task', { ...taskDraft('t', { reminders, reminderDue: at(9) }), title: 'x' }),
        );
        expect((await store.webhooks.events(accountId, 0, 10)).map((event) => event.type)).toEqual([
          'task.created',
          'reminder.due',
          'task.updated',
        ]);
      });

      it("keeps a change of every kind in the outbox of an account with a hook, in the change's commit", async () => {
        // The outbox triggers are written per kind by each engine's migrations: a kind without
        // them would never reach a hook.
        const accountId = await newAccountId();
        const hook = await store.webhooks.insert(
          accountId,
          { id: 'h', url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: 1 },
          20,
        );
        expect(hook).not.toBe('full');
        const revs: number[] = [];
        for (const kind of SYNC_KINDS) {
          const record = await store.write(accountId, (w) => w.put(kind, TEXT_EVERYWHERE[kind]('x')));
          revs.push(record.rev);
        }
        const events = await store.webhooks.events(accountId, 0, 10);
        expect(events.map((event) => [event.kind, event.rev, event.type])).toEqual(
          SYNC_KINDS.map((kind, i) => [kind, revs[i], kind === 'task' ? 'task.created' : `${kind}.changed`]),
        );
      });

      it('keeps each change as it left the record, though the record changed again before delivery', async () => {
        // The outbox names a change and its row while that row stands; a later write keeps the
        // row as it was for the hooks not past it yet.
        const accountId = await newAccountId();
        const hook = await store.webhooks.insert(
          accountId,
          { id: 'h', url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: 1 },
          20,
        );
        expect(hook).not.toBe('full');
        const first = await store.write(accountId, (w) => w.put('task', taskDraft('t', { title: 'first' })));
        const second = await store.write(accountId, (w) => w.put('task', taskDraft('t', { title: 'second' })));
        await store.write(accountId, async (w) => {
          await w.put('task', taskDraft('t', { title: 'third' }));
          await w.put('task', taskDraft('t', { title: 'fourth', completed: first.created }));
        });
        const project = await store.write(accountId, (w) => w.put('project', projectDraft('p', { name: 'One' })));
        await store.write(accountId, (w) => w.put('project', projectDraft('p', { name: 'Two' })));
        const events = await store.webhooks.events(accountId, 0, 10);
        expect(events.map((event) => [event.type, event.record.rev, event.rev])).toEqual([
          ['task.created', first.rev, first.rev],
          ['task.updated', second.rev, second.rev],
          ['task.updated', second.rev + 1, second.rev + 1],
          ['task.completed', second.rev + 2, second.rev + 2],
          ['project.changed', project.rev, project.rev],
          ['project.changed', project.rev + 1, project.rev + 1],
        ]);
        const shown = events.map(({ record }) => ('title' in record ? record.title : record.name));
        expect(shown).toEqual(['first', 'second', 'third', 'fourth', 'One', 'Two']);
        expect(events[0]?.record).toEqual(first);
        expect(await store.webhooks.events(accountId, second.rev, 1)).toEqual([events[2]]);
      });

      it('keeps only the changes that an active hook of the account wants', async () => {
        // A hook for reminders or projects alone must cost a task's write nothing (bench part W).
        const accountId = await newAccountId();
        const hook = (id: string, events: string[], active = true) =>
          store.webhooks.insert(
            accountId,
            { id, url: 'https://example.com/', events, active, secret: 'whsec_x', created: 1 },
            20,
          );
        expect(await hook('projects', ['project.changed'])).not.toBe('full');
        expect(await hook('off', ['*'], false)).not.toBe('full');
        const created = await store.write(accountId, (w) => w.put('task', taskDraft('t')));
        const project = await store.write(accountId, (w) => w.put('project', projectDraft('p')));
        expect((await store.webhooks.events(accountId, 0, 10)).map((event) => [event.type, event.rev])).toEqual([
          ['project.changed', project.rev],
        ]);
        expect(await hook('completions', ['task.completed', 'reminder.due'])).not.toBe('full');
        await store.write(accountId, (w) => w.put('task', { ...taskDraft('t'), title: 'renamed' }));
        const completed = await store.write(accountId, (w) =>
          w.put('task', { ...taskDraft('t'), title: 'renamed', completed: created.created }),
        );
        expect((await store.webhooks.events(accountId, 0, 10)).map((event) => [event.type, event.rev])).toEqual([
          ['project.changed', project.rev],
          ['task.completed', completed.rev],
        ]);
      });
    });

    // Both engines once decided these differently; each is pinned here to one expectation.
    describe('one behaviour on every engine', () => {
      it('refuses a second live project or context of one name as `name` taken', async () => {
        const accountId = await newAccountId();
        for (const kind of ['project', 'context'] as const) {
          await store.write(accountId, (w) =>
            kind === 'project'
              ? w.put('project', projectDraft('first', { name: 'Same' }))
              : w.put('context', contextDraft('first', { name: 'Same' })),
          );
          const clash = store.write(accountId, (w) =>
            kind === 'project'
              ? w.put('project', projectDraft('second', { name: 'Same' }))
              : w.put('context', contextDraft('second', { name: 'Same' })),
          );
          await expect(clash).rejects.toBeInstanceOf(DomainError);
          await expect(clash).rejects.toMatchObject({ problem: { kind: 'invalid', field: 'name', reason: 'taken' } });
          expect(await store.get(accountId, kind, 'second')).toBeUndefined();
        }
      });

      it('answers a read of a closed snapshot as the store unavailable, never as the end', async () => {
        const accountId = await newAccountId();
        await store.write(accountId, (w) => w.put('task', taskDraft('t')));
        const snapshot = await store.list(accountId, 'task', { includeDeleted: false });
        await snapshot.close();
        await expect(snapshot.nextBatch()).rejects.toBeInstanceOf(StoreUnavailableError);
      });

      it("stamps records with the store's clock, one microsecond apart when it stands still", async () => {
        const instant = Date.UTC(2031, 0, 2, 3, 4, 5) * 1000;
        const opened = await open({ clock: () => instant });
        try {
          await opened.store.migrate();
          const account = await opened.store.createAccount({
            username: 'clocked',
            passwordHash: null,
            timezone: 'UTC',
          });
          const [first, second] = await opened.store.write(account.id, async (w) => [
            await w.put('task', taskDraft('a')),
            await w.put('task', taskDraft('b')),
          ]);
          expect(first).toMatchObject({ created: instant, updated: instant });
          expect(second).toMatchObject({ created: instant + 1, updated: instant + 1 });
          expect(account.created).toBe(instant);
        } finally {
          await opened.cleanup();
        }
      });
    });

    describe('head', () => {
      it('tells where an account stands, and moves with each change and purge', async () => {
        const accountId = await newAccountId();
        expect(await store.head(accountId)).toEqual({ rev: 0, purgedRev: 0 });
        await store.write(accountId, async (w) => {
          await w.put('task', taskDraft('one'));
          await w.put('task', taskDraft('two', { deleted: nowMicros() - 10 }));
        });
        expect(await store.head(accountId)).toEqual({ rev: 2, purgedRev: 0 });
        // Purged by the server's time of the deletion (`updated`), which the stamp step may put a
        // microsecond past the clock: the cutoff is a millisecond later.
        await store.purge(nowMicros() + 1000);
        expect(await store.head(accountId)).toEqual({ rev: 2, purgedRev: 2 });
        expect(await store.head(accountId + 1000)).toBeUndefined();
      });
    });

    describe("the store's life (issue 21)", () => {
      it('has an epoch of its own from the start, which every list snapshot carries, and no restore gap', async () => {
        const identity = await store.identity();
        expect(identity.epoch).toMatch(/^[0-9a-f]{16}$/);
        // A store made after epochs never handed out a cursor without one.
        expect(identity.legacyPositions).toBe(false);
        const accountId = await newAccountId();
        await store.write(accountId, (w) => w.put('task', taskDraft('one')));
        const snapshot = await store.list(accountId, 'task', { includeDeleted: false });
        expect(snapshot.identity).toEqual(identity);
        expect(snapshot.restoreGap).toEqual({ after: 0, before: 0 });
        await snapshot.close();
        // Migrating again (every start does) keeps it.
        await store.migrate();
        expect(await store.identity()).toEqual(identity);
        const other = await open();
        try {
          await other.store.migrate();
          expect((await other.store.identity()).epoch).not.toBe(identity.epoch);
        } finally {
          await other.cleanup();
        }
      });
    });
  });
}

/** Everything a snapshot holds, read to its end; the snapshot is closed. */
export interface SnapshotContents<T> {
  readonly headRev: number;
  readonly purgedRev: number;
  readonly purgedUpdated: Micros;
  readonly records: T[];
  readonly batches: number;
}

export async function readAll<T>(snapshot: ListSnapshot<T>): Promise<SnapshotContents<T>> {
  const records: T[] = [];
  let batches = 0;
  try {
    for (let batch = await snapshot.nextBatch(); batch !== null; batch = await snapshot.nextBatch()) {
      expect(batch.length).toBeGreaterThan(0);
      records.push(...batch);
      batches += 1;
    }
  } finally {
    await snapshot.close();
  }
  const { headRev, purgedRev, purgedUpdated } = snapshot;
  return { headRev, purgedRev, purgedUpdated, records, batches };
}

/** Runs checks inside a write transaction, where the by-name and by-label lookups live. */
function tx<T>(store: Store, accountId: number, work: (t: WriteTx) => Promise<T>): Promise<T> {
  return store.write(accountId, work);
}

/** The order of `tasksWithLabel` is not part of the contract. */
function byRev<T extends { readonly rev: number }>(records: readonly T[]): T[] {
  return [...records].sort((a, b) => a.rev - b.rev);
}

/**
 * A record of each kind with `text` in every free-text field, so that the usage triggers (the
 * migrations) and countedText (store/kinds/records.ts) must agree on every one: a new kind fails
 * to compile here until it has a line.
 */
export const TEXT_EVERYWHERE: { readonly [K in SyncKind]: (text: string) => DraftsByKind[K] } = {
  task: (text) => taskDraft('k', { title: text, notes: text, icalExtras: text }),
  project: (text) => projectDraft('k', { name: text, notes: text }),
  context: (text) => contextDraft('k', { name: text }),
};

export function taskDraft(id: string, fields: Partial<TaskDraft> = {}): TaskDraft {
  return {
    ...NEW_TASK,
    id,
    title: `task ${id}`,
    notes: '',
    attribute: 'inbox',
    allDay: false,
    startAt: null,
    endAt: null,
    completed: null,
    trashed: null,
    deleted: null,
    project: null,
    context: null,
    tags: [],
    priority: 0,
    repeater: null,
    icalExtras: '',
    ...fields,
  };
}

export function projectDraft(id: string, fields: Partial<ProjectDraft> = {}): ProjectDraft {
  return { id, name: `project ${id}`, notes: '', archived: null, deleted: null, color: null, ...fields };
}

export function contextDraft(id: string, fields: Partial<ContextDraft> = {}): ContextDraft {
  return { id, name: `context ${id}`, deleted: null, ...fields };
}

function nowMicros(): Micros {
  return microsFromMillis(Date.now());
}
