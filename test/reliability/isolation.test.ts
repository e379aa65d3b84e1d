/**
 * Isolation between accounts (issue #6, 4), property-based on both engines: several accounts do
 * random work (create, update, delete, array POSTs, lists of every kind, gets, projects and
 * contexts, settings), guessing and POSTing each other's ids. Every account writes a marker of
 * its own into every text it sends; no answer to one account ever contains another's marker, a
 * list holds only the account's own records, and another account's id is answered exactly as an
 * id that never existed, or, when POSTed, makes a task of the caller's own.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINES, startHarness, type Answer, type Harness, type User } from '../support/harness.js';
import { escapeHtml } from '../http/support/api.js';
import { reportFigures } from './support/figures.js';

const ACCOUNTS = 3;
const RUNS = Math.round(40 * Number(process.env['RELIABILITY_FUZZ_SCALE'] ?? 1));

/** Ids every account may use: the same id in several accounts names a different task in each. */
const SHARED_IDS = ['shared-1', 'shared-2', 'shared-3', 'Jd1L1v0nQ0ypG4m0S8q4xg==', 'a/b+c=.d'];

type Target = { readonly from: 'own' | 'other' | 'shared'; readonly pick: number };

type Operation =
  | { readonly kind: 'create'; readonly who: number; readonly id: Target | null; readonly labels: boolean }
  | { readonly kind: 'update'; readonly who: number; readonly id: Target }
  | { readonly kind: 'delete'; readonly who: number; readonly id: Target }
  | { readonly kind: 'array'; readonly who: number; readonly ids: readonly Target[] }
  | {
      readonly kind: 'list';
      readonly who: number;
      readonly resource: 'tasks' | 'projects' | 'contexts';
      readonly query: number;
    }
  | {
      readonly kind: 'get';
      readonly who: number;
      readonly resource: 'tasks' | 'projects' | 'contexts';
      readonly id: Target;
    }
  | {
      readonly kind: 'label';
      readonly who: number;
      readonly resource: 'projects' | 'contexts';
      readonly id: Target | null;
    }
  | {
      readonly kind: 'use label id';
      readonly who: number;
      readonly resource: 'projects' | 'contexts';
      readonly id: Target;
    }
  | { readonly kind: 'settings'; readonly who: number; readonly change: boolean };

const who = fc.integer({ min: 0, max: ACCOUNTS - 1 });
const target: fc.Arbitrary<Target> = fc.record({
  from: fc.constantFrom('own', 'other', 'other', 'shared'),
  pick: fc.nat(),
});
const resource = fc.constantFrom('tasks', 'projects', 'contexts');
const label = fc.constantFrom('projects', 'contexts');

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('create'), who, id: fc.option(target, { nil: null }), labels: fc.boolean() }),
  fc.record({ kind: fc.constant('update'), who, id: target }),
  fc.record({ kind: fc.constant('delete'), who, id: target }),
  fc.record({ kind: fc.constant('array'), who, ids: fc.array(target, { minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('list'), who, resource, query: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('get'), who, resource, id: target }),
  fc.record({ kind: fc.constant('label'), who, resource: label, id: fc.option(target, { nil: null }) }),
  fc.record({ kind: fc.constant('use label id'), who, resource: label, id: target }),
  fc.record({ kind: fc.constant('settings'), who, change: fc.boolean() }),
);

interface Account {
  readonly user: User;
  readonly marker: string;
  /** Ids of the account's records, by resource, as the service answered them. */
  readonly ids: Record<'tasks' | 'projects' | 'contexts', Set<string>>;
}

describe.each(ENGINES)('isolation between accounts on %s', (engine) => {
  let harness: Harness | undefined;
  const figures = { runs: 0, operations: 0, answersScanned: 0, foreignIdProbes: 0, foreignIdPosts: 0, leaks: 0 };

  beforeAll(async () => {
    harness = await startHarness(engine);
  });
  afterAll(async () => {
    await harness?.close();
    reportFigures(`isolation (${engine})`, figures);
  });

  it(
    'never shows one account another account’s data, whatever they do with each other’s ids',
    { timeout: 120_000 },
    async () => {
      const h = harness;
      if (h === undefined) throw new Error('the harness is not started');

      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 15, maxLength: 50 }), fc.nat(), async (operations, salt) => {
          figures.runs += 1;
          const accounts: Account[] = [];
          for (let index = 0; index < ACCOUNTS; index += 1) {
            accounts.push({
              user: await h.newUser(),
              marker: `MARK${index}Q${salt.toString(36)}Z${figures.runs}`,
              ids: { tasks: new Set(), projects: new Set(), contexts: new Set() },
            });
          }
          const account = (index: number): Account => {
            const found = accounts[index];
            if (found === undefined) throw new Error(`no account ${index}`);
            return found;
          };
          let serial = 0;

          /** One request as `index`; its answer is scanned for every other account's marker. */
          const send = async (
            index: number,
            request: { url: string; body?: unknown; method?: 'GET' | 'POST' },
            viaQuery = false,
          ): Promise<Answer> => {
            const me = account(index);
            const url = viaQuery
              ? `${request.url}${request.url.includes('?') ? '&' : '?'}access_token=${me.user.token}`
              : request.url;
            const answer = await call(h.app, { ...request, url, ...(viaQuery ? {} : { token: me.user.token }) });
            figures.operations += 1;
            figures.answersScanned += 1;
            expect(answer.status, answer.text).toBeLessThan(500);
            for (const other of accounts) {
              if (other !== me && answer.text.includes(other.marker)) {
                figures.leaks += 1;
                throw new Error(
                  `account ${index} was shown ${other.marker}: ${request.url} ${JSON.stringify(request.body)} → ${answer.text.slice(0, 500)}`,
                );
              }
            }
            return answer;
          };

          /** The id a target names: one of the account's own, another account's, or a shared one. */
          const resolve = (
            index: number,
            kind: 'tasks' | 'projects' | 'contexts',
            choice: Target,
          ): { id: string; foreign: boolean } => {
            const mine = account(index).ids[kind];
            const theirs = accounts
              .filter((_other, other) => other !== index)
              .flatMap((other) => [...other.ids[kind]].filter((id) => !mine.has(id)));
            const from = choice.from === 'own' ? [...mine] : choice.from === 'other' ? theirs : SHARED_IDS;
            const id =
              from[choice.pick % Math.max(1, from.length)] ?? SHARED_IDS[choice.pick % SHARED_IDS.length] ?? 'none';
            return { id, foreign: !mine.has(id) && theirs.includes(id) };
          };

          const text = (index: number, what: string): string => {
            serial += 1;
            return `${what} ${serial} ${account(index).marker} <&>`;
          };

          const learn = (index: number, kind: 'tasks' | 'projects' | 'contexts', answer: Answer): void => {
            if (answer.status !== 200) return;
            const json: unknown = answer.json;
            const records =
              typeof json === 'object' && json !== null && 'entries' in json && Array.isArray(json.entries)
                ? json.entries
                : [json];
            for (const record of records) {
              if (typeof record === 'object' && record !== null && 'id' in record && typeof record.id === 'string')
                account(index).ids[kind].add(record.id);
            }
          };

          /** Every entry of a list answer is the account's own: its texts carry the account's marker. */
          const ownEntriesOnly = (index: number, answer: Answer): void => {
            const json: unknown = answer.json;
            if (typeof json !== 'object' || json === null || !('entries' in json) || !Array.isArray(json.entries))
              return;
            for (const entry of json.entries) {
              expect(JSON.stringify(entry), `a list of account ${index}`).toContain(account(index).marker);
            }
          };

          for (const op of operations) {
            const index = op.who;
            switch (op.kind) {
              case 'create': {
                const chosen = op.id === null ? undefined : resolve(index, 'tasks', op.id);
                if (chosen?.foreign === true) figures.foreignIdPosts += 1;
                const body = {
                  ...(chosen === undefined ? {} : { id: chosen.id }),
                  title: text(index, 'task'),
                  notes: text(index, 'notes'),
                  tags: [text(index, 'tag').slice(-90)],
                  ...(op.labels ? { project: text(index, 'project'), context: text(index, 'context') } : {}),
                };
                const answer = await send(index, { url: '/v1/tasks', body });
                expect(answer.status, answer.text).toBe(200);
                learn(index, 'tasks', answer);
                // Another account's id made the caller's own task: the answer is the caller's text.
                expect(answer.text).toContain(escapeHtml(body.title));
                break;
              }
              case 'update':
              case 'delete': {
                const chosen = resolve(index, 'tasks', op.id);
                if (chosen.foreign) figures.foreignIdPosts += 1;
                const body = {
                  id: chosen.id,
                  title: text(index, op.kind),
                  ...(op.kind === 'delete' ? { deleted: new Date().toISOString() } : {}),
                };
                const answer = await send(index, { url: '/v1/tasks', body });
                expect(answer.status, answer.text).toBe(200);
                learn(index, 'tasks', answer);
                break;
              }
              case 'array': {
                const ids = [...new Set(op.ids.map((choice) => resolve(index, 'tasks', choice).id))];
                const body = ids.map((id) => ({ id, title: text(index, 'array') }));
                const answer = await send(index, { url: '/v1/tasks', body });
                expect(answer.status, answer.text).toBe(200);
                learn(index, 'tasks', answer);
                break;
              }
              case 'list': {
                const query =
                  ['', '?cursor=c1.0', '?updated_after=2000-01-01', '?limit=3', '?cursor=c1.0&limit=2'][op.query] ?? '';
                const answer = await send(index, { url: `/v1/${op.resource}${query}` }, op.query === 4);
                expect(answer.status, answer.text).toBe(200);
                ownEntriesOnly(index, answer);
                break;
              }
              case 'get': {
                const chosen = resolve(index, op.resource, op.id);
                const answer = await send(index, { url: `/v1/${op.resource}/${encodeURIComponent(chosen.id)}` });
                if (account(index).ids[op.resource].has(chosen.id)) {
                  expect(answer.status, answer.text).toBe(200);
                  expect(answer.text).toContain(account(index).marker);
                } else {
                  // Another account's record is answered exactly as one that never existed.
                  if (chosen.foreign) figures.foreignIdProbes += 1;
                  const kind = op.resource.slice(0, -1);
                  expect(answer.status, answer.text).toBe(400);
                  expect(answer.json).toEqual({
                    retcode: 'E007',
                    retmsg: escapeHtml(`not found: ${kind} ${chosen.id}`),
                    reqdata: '',
                  });
                }
                break;
              }
              case 'label': {
                const chosen = op.id === null ? undefined : resolve(index, op.resource, op.id);
                if (chosen?.foreign === true) figures.foreignIdPosts += 1;
                const body = {
                  ...(chosen === undefined ? {} : { id: chosen.id }),
                  name: text(index, 'label'),
                  ...(op.resource === 'projects' ? { notes: text(index, 'notes') } : {}),
                };
                const answer = await send(index, { url: `/v1/${op.resource}`, body });
                expect(answer.status, answer.text).toBe(200);
                learn(index, op.resource, answer);
                break;
              }
              case 'use label id': {
                // A task naming another account's project or context by id: refused, as an unknown id.
                const chosen = resolve(index, op.resource, op.id);
                const field = op.resource === 'projects' ? 'project_id' : 'context_id';
                const answer = await send(index, {
                  url: '/v1/tasks',
                  body: { title: text(index, 'labelled'), [field]: chosen.id },
                });
                if (account(index).ids[op.resource].has(chosen.id)) {
                  // Its own label: taken, unless it was deleted meanwhile.
                  expect([200, 400]).toContain(answer.status);
                } else {
                  if (chosen.foreign) figures.foreignIdProbes += 1;
                  expect(answer.status, answer.text).toBe(400);
                  expect(answer.json).toMatchObject({ retcode: 'E004' });
                }
                learn(index, 'tasks', answer);
                break;
              }
              case 'settings': {
                const answer = op.change
                  ? await send(index, { url: '/v1/settings', body: { nickname: text(index, 'nick').slice(-100) } })
                  : await send(index, { url: '/v1/settings' });
                expect(answer.status, answer.text).toBe(200);
                expect(answer.text).toContain(account(index).user.username);
                break;
              }
            }
          }

          // Finally each account's whole state, deleted records included: its own, all of it.
          for (let index = 0; index < ACCOUNTS; index += 1) {
            for (const kind of ['tasks', 'projects', 'contexts'] as const) {
              const answer = await send(index, { url: `/v1/${kind}?cursor=c1.0` });
              ownEntriesOnly(index, answer);
              const json: unknown = answer.json;
              const listed =
                typeof json === 'object' && json !== null && 'entries' in json && Array.isArray(json.entries)
                  ? json.entries.length
                  : -1;
              expect(listed).toBeGreaterThanOrEqual(0);
            }
          }
        }),
        { numRuns: RUNS },
      );
      expect(figures.leaks).toBe(0);
    },
  );
});
