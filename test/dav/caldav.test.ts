import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ServiceMetrics } from '../../src/http/metrics/metrics.js';
import { startHarness, ENGINES, type Harness } from '../support/harness.js';
import {
  CALDAV,
  basic,
  dav,
  multistatus,
  precondition,
  propfindBody,
  unfoldedLines,
  vcalendar,
  vtodoOf,
  type DavUser,
} from './support.js';

const wireTask = z.looseObject({
  id: z.string(),
  title: z.string(),
  notes: z.string(),
  completed: z.string().nullable(),
  deleted: z.string().nullable(),
  trashed: z.string().nullable(),
  project: z.string().nullable(),
  project_id: z.string().nullable(),
  context: z.string().nullable(),
  tags: z.array(z.string()),
  priority: z.number(),
  start_at: z.string().nullable(),
  repeater: z.string().nullable(),
  rev: z.number(),
});
const taskList = z.object({ entries: z.array(wireTask), cursor: z.string(), has_more: z.boolean() });

describe.each(ENGINES)('CalDAV (%s)', (engine) => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness(engine, { app: { caldav: true } });
  });
  afterAll(async () => {
    await harness.close();
  });

  const v1 = async (user: DavUser, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const response = await harness.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${user.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: response.statusCode, json: JSON.parse(response.body) as unknown, text: response.body };
  };
  const listTasks = async (user: DavUser, query = '') =>
    taskList.parse((await v1(user, 'GET', `/v1/tasks${query}`)).json);
  const createTask = async (user: DavUser, body: Record<string, unknown>) =>
    wireTask.parse((await v1(user, 'POST', '/v1/tasks', body)).json);
  const home = (user: DavUser) => `/dav/calendars/${user.username}/`;
  const inbox = (user: DavUser) => `${home(user)}inbox/`;
  const request = (user: DavUser | undefined, options: Parameters<typeof dav>[2]) => dav(harness.app, user, options);

  describe('discovery and properties', () => {
    it('leads a client from /.well-known/caldav to the principal, the home and its collections', async () => {
      const user = await harness.newUser();
      const wellKnown = await request(undefined, { method: 'PROPFIND', url: '/.well-known/caldav' });
      expect(wellKnown.status).toBe(301);
      expect(wellKnown.headers['location']).toBe('/dav/');

      const root = multistatus(
        await request(user, {
          method: 'PROPFIND',
          url: '/dav/',
          headers: { depth: '0' },
          body: propfindBody('d:current-user-principal'),
        }),
      );
      const principal = root.responses.get('/dav/')?.props.get('current-user-principal');
      expect(principal?.children[0]?.text).toBe(`/dav/principals/${user.username}/`);

      const principalProps = multistatus(
        await request(user, {
          method: 'PROPFIND',
          url: `/dav/principals/${user.username}/`,
          headers: { depth: '0' },
          body: propfindBody('c:calendar-home-set', 'd:displayname', 'x:unknown-thing'),
        }),
      ).responses.get(`/dav/principals/${user.username}/`);
      expect(principalProps?.props.get('calendar-home-set')?.children[0]?.text).toBe(home(user));
      // An unknown property is a 404 in its own propstat, never an error of the whole request.
      expect(principalProps?.missing.has('unknown-thing')).toBe(true);

      await createTask(user, { title: 'In a project', project: 'Home & <Garden>' });
      const listing = multistatus(
        await request(user, {
          method: 'PROPFIND',
          url: home(user),
          headers: { depth: '1' },
          body: propfindBody(
            'd:resourcetype',
            'd:displayname',
            'c:supported-calendar-component-set',
            'd:sync-token',
            'cs:getctag',
          ),
        }),
      );
      const collections = [...listing.responses.keys()].filter((href) => href !== home(user));
      expect(collections).toHaveLength(2);
      expect(collections[0]).toBe(inbox(user));
      const project = listing.responses.get(collections[1] ?? '');
      // The project's name raw: XML escaping is the writer's, and undone by the reader.
      expect(project?.props.get('displayname')?.text).toBe('Home & <Garden>');
      expect(project?.props.get('resourcetype')?.children.map((child) => child.name)).toEqual([
        'collection',
        'calendar',
      ]);
      expect(project?.props.get('supported-calendar-component-set')?.children[0]?.attributes.get('name')).toBe('VTODO');
      expect(project?.props.get('sync-token')?.text).toMatch(/^http:\/\/task-service\.invalid\/sync\//);
      expect(project?.props.get('getctag')?.text).toBe(project?.props.get('sync-token')?.text);
    });

    it('answers OPTIONS with the DAV classes and refuses Depth: infinity', async () => {
      const user = await harness.newUser();
      const options = await request(user, { method: 'OPTIONS', url: inbox(user) });
      expect(options.status).toBe(200);
      expect(options.headers['dav']).toBe('1, 3, calendar-access');
      expect(String(options.headers['allow'])).toContain('REPORT');
      const infinite = await request(user, { method: 'PROPFIND', url: home(user), headers: { depth: 'infinity' } });
      expect(infinite.status).toBe(403);
      expect(precondition(infinite)).toBe('propfind-finite-depth');
    });
  });

  describe('who may', () => {
    it('asks for Basic, refuses the sign-in password with a hint to make an app password, and counts it', async () => {
      const username = `pw${Date.now()}${engine}`;
      await harness.accounts.addUser(username, 'the-sign-in-password', 'UTC');
      const token = await harness.accounts.createToken(username, 'write', 'phone', null);
      const none = await request(undefined, { method: 'PROPFIND', url: '/dav/' });
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Basic realm="task-service", charset="UTF-8"');
      const password = await request(undefined, {
        method: 'PROPFIND',
        url: '/dav/',
        authorization: basic(username, 'the-sign-in-password'),
      });
      expect(password.status).toBe(401);
      expect(password.text).toContain('make an app password');
      const wrong = await request(undefined, {
        method: 'PROPFIND',
        url: '/dav/',
        authorization: basic(username, 'nope'),
      });
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain('app password under');
      // Failed Basic attempts count as failed sign-ins: after the fifth, even the right password is not checked.
      for (let attempt = 0; attempt < 4; attempt += 1)
        await request(undefined, { method: 'PROPFIND', url: '/dav/', authorization: basic(username, 'nope') });
      const throttled = await request(undefined, {
        method: 'PROPFIND',
        url: '/dav/',
        authorization: basic(username, 'the-sign-in-password'),
      });
      expect(throttled.status).toBe(401);
      expect(throttled.text).not.toContain('app password under');
      // The app password itself still works: throttling holds back guesses, not the owner's devices.
      const app = await request(undefined, { method: 'PROPFIND', url: '/dav/', authorization: basic(username, token) });
      expect(app.status).toBe(207);
      const bearer = await request(undefined, { method: 'PROPFIND', url: '/dav/', authorization: `Bearer ${token}` });
      expect(bearer.status).toBe(207);
    });

    it('lets a read token read but not write, and shows another account nothing', async () => {
      const user = await harness.newUser();
      const other = await harness.newUser();
      const readOnly = { ...user, token: user.readToken };
      expect((await request(readOnly, { method: 'PROPFIND', url: inbox(user), headers: { depth: '1' } })).status).toBe(
        207,
      );
      const put = await request(readOnly, {
        method: 'PUT',
        url: `${inbox(user)}a.ics`,
        body: vcalendar('UID:a', 'SUMMARY:x'),
      });
      expect(put.status).toBe(403);
      expect((await listTasks(user)).entries).toHaveLength(0);
      const theirs = await request(other, { method: 'PROPFIND', url: inbox(user), headers: { depth: '0' } });
      const nowhere = await request(other, {
        method: 'PROPFIND',
        url: '/dav/calendars/nobody-here/inbox/',
        headers: { depth: '0' },
      });
      expect(theirs.status).toBe(404);
      expect(nowhere.status).toBe(404);
      expect(theirs.text).toBe(nowhere.text);
    });
  });

  describe('tasks as resources', () => {
    it('serves a /v1 task under <id>.ics with its id as UID and raw text, and a new ETag after each change', async () => {
      const user = await harness.newUser();
      const task = await createTask(user, { title: 'Fish & <chips>', tags: ['food'], priority: 3, context: '@home' });
      const url = `${inbox(user)}${task.id}.ics`;
      const first = await request(user, { method: 'GET', url });
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toBe('text/calendar; charset=utf-8; component=VTODO');
      const todo = vtodoOf(first.text);
      expect(todo.getFirstPropertyValue('uid')).toBe(task.id);
      expect(todo.getFirstPropertyValue('summary')).toBe('Fish & <chips>');
      expect(todo.getFirstPropertyValue('priority')).toBe(1);
      expect(todo.getFirstProperty('categories')?.getValues()).toEqual(['@home', 'food']);
      const etag = String(first.headers['etag']);
      expect(etag).toMatch(/^"\d+"$/);
      await v1(user, 'POST', '/v1/tasks', { id: task.id, title: 'Fish and chips' });
      const second = await request(user, { method: 'HEAD', url });
      expect(second.status).toBe(200);
      expect(second.headers['etag']).not.toBe(etag);
      expect(
        (await request(user, { method: 'GET', url, headers: { 'if-none-match': String(second.headers['etag']) } }))
          .status,
      ).toBe(304);
    });

    it('creates with If-None-Match, refuses stale conditions with 412, and deletes as /v1 does', async () => {
      const user = await harness.newUser();
      const url = `${inbox(user)}new-task.ics`;
      const body = vcalendar('UID:new-task', 'DTSTAMP:20260101T000000Z', 'SUMMARY:Write the report');
      const created = await request(user, { method: 'PUT', url, body, headers: { 'if-none-match': '*' } });
      expect(created.status).toBe(201);
      const etag = String(created.headers['etag']);
      expect(etag).toMatch(/^"\d+"$/);
      expect((await listTasks(user)).entries.map((task) => task.title)).toEqual(['Write the report']);
      expect((await request(user, { method: 'PUT', url, body, headers: { 'if-none-match': '*' } })).status).toBe(412);
      const changed = vcalendar('UID:new-task', 'SUMMARY:Write the report today');
      expect((await request(user, { method: 'PUT', url, body: changed, headers: { 'if-match': etag } })).status).toBe(
        204,
      );
      const stale = await request(user, {
        method: 'PUT',
        url,
        body: vcalendar('UID:new-task', 'SUMMARY:lost'),
        headers: { 'if-match': etag },
      });
      expect(stale.status).toBe(412);
      expect((await request(user, { method: 'DELETE', url, headers: { 'if-match': etag } })).status).toBe(412);
      expect((await listTasks(user)).entries.map((task) => task.title)).toEqual(['Write the report today']);
      const { cursor } = await listTasks(user, '?limit=100');
      expect((await request(user, { method: 'DELETE', url })).status).toBe(204);
      expect((await request(user, { method: 'GET', url })).status).toBe(404);
      const since = await listTasks(user, `?cursor=${cursor}`);
      expect(since.entries.map((task) => [task.id, task.deleted !== null])).toEqual([['new-task', true]]);
    });

    it('keeps every property, parameter and sub-component it does not map, also after a /v1 change', async () => {
      const user = await harness.newUser();
      const lines = [
        'UID:kept-1',
        'SUMMARY;LANGUAGE=en:Plant the tulips',
        'DTSTART;TZID=Europe/Berlin:20261101T093000',
        'X-APPLE-SORT-ORDER:733581937',
        'X-MOZ-LASTACK:20261101T080000Z',
        'GEO:52.52;13.405',
        'X-FOO;P=1:v',
        'STATUS:IN-PROCESS',
        'BEGIN:VALARM',
        'ACTION:DISPLAY',
        'TRIGGER;RELATED=START:-PT15M',
        'DESCRIPTION:Reminder',
        'X-WR-ALARMUID:9E6E1A2B',
        'END:VALARM',
      ];
      const put = await request(user, { method: 'PUT', url: `${inbox(user)}kept-1.ics`, body: vcalendar(...lines) });
      expect(put.status).toBe(201);
      const [stored] = (await listTasks(user)).entries;
      // 09:30 in Berlin is 08:30 UTC in November.
      expect(stored?.start_at).toBe('2026-11-01 08:30:00 +0000');
      await v1(user, 'POST', '/v1/tasks', { id: 'kept-1', tags: ['garden'] });
      const served = unfoldedLines((await request(user, { method: 'GET', url: `${inbox(user)}kept-1.ics` })).text);
      for (const line of lines) expect(served, line).toContain(line);
      expect(served).toContain('CATEGORIES:garden');
      // A TZID some clients prefix (Evolution's) names the IANA zone it ends with.
      const prefixed = vcalendar(
        'UID:kept-2',
        'SUMMARY:x',
        'DTSTART;TZID=/freeassociation.sourceforge.net/Europe/Berlin:20261101T093000',
      );
      expect((await request(user, { method: 'PUT', url: `${inbox(user)}kept-2.ics`, body: prefixed })).status).toBe(
        201,
      );
      expect(wireTask.parse((await v1(user, 'GET', '/v1/tasks/kept-2')).json).start_at).toBe(
        '2026-11-01 08:30:00 +0000',
      );
      // A /v1 change that contradicts a client's line replaces it with the server's.
      await v1(user, 'POST', '/v1/tasks', {
        id: 'kept-1',
        title: 'Plant the bulbs',
        completed: '2026-11-02T10:00:00Z',
      });
      const after = unfoldedLines((await request(user, { method: 'GET', url: `${inbox(user)}kept-1.ics` })).text);
      expect(after).toContain('SUMMARY:Plant the bulbs');
      expect(after).toContain('STATUS:COMPLETED');
      expect(after).toContain('X-FOO;P=1:v');
    });

    it('takes the first @ category as the context, and answers a repeat moved on without an ETag', async () => {
      const user = await harness.newUser();
      const put = await request(user, {
        method: 'PUT',
        url: `${inbox(user)}ctx.ics`,
        body: vcalendar('UID:ctx', 'SUMMARY:Call', 'CATEGORIES:@phone,work,@later'),
      });
      expect(put.status).toBe(201);
      const [task] = (await listTasks(user)).entries;
      expect(task?.context).toBe('@phone');
      expect(task?.tags).toEqual(['work', '@later']);

      const repeating = vcalendar(
        'UID:weekly',
        'SUMMARY:Water the plants',
        'DTSTART:20261102T080000Z',
        'RRULE:FREQ=WEEKLY',
      );
      expect((await request(user, { method: 'PUT', url: `${inbox(user)}weekly.ics`, body: repeating })).status).toBe(
        201,
      );
      const done = await request(user, {
        method: 'PUT',
        url: `${inbox(user)}weekly.ics`,
        body: vcalendar(
          'UID:weekly',
          'SUMMARY:Water the plants',
          'DTSTART:20261102T080000Z',
          'RRULE:FREQ=WEEKLY',
          'STATUS:COMPLETED',
          'COMPLETED:20261102T090000Z',
        ),
      });
      expect(done.status).toBe(204);
      expect(done.headers['etag']).toBeUndefined();
      const moved = vtodoOf((await request(user, { method: 'GET', url: `${inbox(user)}weekly.ics` })).text);
      expect(String(moved.getFirstPropertyValue('dtstart'))).toBe('2026-11-09T08:00:00Z');
      expect(moved.getFirstPropertyValue('status')).toBe('NEEDS-ACTION');
    });

    it('keeps the name a client chose and a UID that is no id', async () => {
      const user = await harness.newUser();
      const uid = '20261101T101010Z-4711@phone.example';
      const url = `${inbox(user)}Some%20Name.ics`;
      expect((await request(user, { method: 'PUT', url, body: vcalendar(`UID:${uid}`, 'SUMMARY:Odd') })).status).toBe(
        201,
      );
      const listing = multistatus(
        await request(user, {
          method: 'PROPFIND',
          url: inbox(user),
          headers: { depth: '1' },
          body: propfindBody('d:getetag'),
        }),
      );
      expect([...listing.responses.keys()]).toContain(`${inbox(user)}Some Name.ics`);
      const served = await request(user, { method: 'GET', url });
      expect(vtodoOf(served.text).getFirstPropertyValue('uid')).toBe(uid);
      expect(served.text).not.toContain('X-TASK-SERVICE-RESOURCE');
      // The same UID under another name of the collection is a conflict, not a second task.
      const twice = await request(user, {
        method: 'PUT',
        url: `${inbox(user)}other.ics`,
        body: vcalendar(`UID:${uid}`, 'SUMMARY:Odd'),
      });
      expect(twice.status).toBe(403);
      expect(precondition(twice)).toBe('no-uid-conflict');
    });

    it('refuses a PUT that moves a UID to another collection, and moves with MOVE keeping the id', async () => {
      const user = await harness.newUser();
      const task = await createTask(user, { title: 'Move me' });
      const made = await request(user, { method: 'MKCALENDAR', url: `${home(user)}work/` });
      expect(made.status).toBe(201);
      const body = (await request(user, { method: 'GET', url: `${inbox(user)}${task.id}.ics` })).text;
      const put = await request(user, { method: 'PUT', url: `${home(user)}work/${task.id}.ics`, body });
      expect(put.status).toBe(409);
      const move = await request(user, {
        method: 'MOVE',
        url: `${inbox(user)}${task.id}.ics`,
        headers: { destination: `http://localhost${home(user)}work/${task.id}.ics` },
      });
      expect(move.status).toBe(201);
      const [moved] = (await listTasks(user)).entries;
      expect(moved?.id).toBe(task.id);
      expect(moved?.project_id).toBe('work');
      expect((await request(user, { method: 'GET', url: `${home(user)}work/${task.id}.ics` })).status).toBe(200);
    });
  });

  describe('bad input: the named status and precondition, nothing stored', () => {
    const refusals: readonly (readonly [string, string | Buffer, number, string | undefined])[] = [
      ['not iCalendar', 'hello, this is not a calendar', 403, 'valid-calendar-data'],
      ['no VTODO', 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n', 403, 'valid-calendar-data'],
      [
        'two UIDs',
        vcalendar('UID:one', 'SUMMARY:a').replace(
          'END:VCALENDAR',
          'BEGIN:VTODO\r\nUID:two\r\nSUMMARY:b\r\nEND:VTODO\r\nEND:VCALENDAR',
        ),
        403,
        'valid-calendar-object-resource',
      ],
      [
        'a VEVENT',
        'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:e\r\nDTSTART:20260101T000000Z\r\nSUMMARY:e\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
        403,
        'supported-calendar-component',
      ],
      [
        'a self-parent',
        vcalendar('UID:self', 'SUMMARY:me', 'RELATED-TO;RELTYPE=PARENT:self'),
        403,
        'valid-calendar-object-resource',
      ],
      [
        'a title past 1000 characters',
        vcalendar('UID:long', `SUMMARY:${'t'.repeat(1001)}`),
        403,
        'valid-calendar-object-resource',
      ],
      [
        'a 10 MB DESCRIPTION',
        vcalendar('UID:big', 'SUMMARY:big', `DESCRIPTION:${'d'.repeat(10_000_000)}`),
        413,
        undefined,
      ],
    ];
    it.each(refusals)('%s', async (_what, body, status, condition) => {
      const user = await harness.newUser();
      const answer = await request(user, { method: 'PUT', url: `${inbox(user)}bad.ics`, body });
      expect(answer.status, answer.text).toBe(status);
      if (condition !== undefined) expect(precondition(answer)).toBe(condition);
      expect(answer.text).toContain('message');
      expect((await listTasks(user, '?cursor=c1.0')).entries).toHaveLength(0);
    });

    it('refuses XML with entities, 10,000 nested elements, and too many hrefs, and still serves', async () => {
      const user = await harness.newUser();
      const entities =
        '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
        '<d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&b;</d:displayname></d:prop></d:propfind>';
      expect((await request(user, { method: 'PROPFIND', url: inbox(user), body: entities })).status).toBe(400);
      const nested = `${'<d:prop xmlns:d="DAV:">'.repeat(10_000)}${'</d:prop>'.repeat(10_000)}`;
      expect((await request(user, { method: 'PROPFIND', url: inbox(user), body: nested })).status).toBe(413);
      const hrefs = Array.from({ length: 1001 }, (_, index) => `<d:href>${inbox(user)}${index}.ics</d:href>`).join('');
      const multiget = await request(user, {
        method: 'REPORT',
        url: inbox(user),
        body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:prop><d:getetag/></d:prop>${hrefs}</c:calendar-multiget>`,
      });
      expect(multiget.status).toBe(403);
      expect(precondition(multiget)).toBe('number-of-matches-within-limits');
      expect((await request(user, { method: 'PROPFIND', url: inbox(user), headers: { depth: '0' } })).status).toBe(207);
    });
  });

  describe('reports', () => {
    const query = (filter: string, extra = '') =>
      `<c:calendar-query xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:prop><d:getetag/>${extra}</d:prop>` +
      `<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO">${filter}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;

    it('filters by is-not-defined, text-match with each collation, and time-range over every occurrence', async () => {
      const user = await harness.newUser();
      await createTask(user, { id: 'open-1', title: 'Buy MILK' });
      await createTask(user, { id: 'done-1', title: 'Buy bread', completed: '2026-11-01T10:00:00Z' });
      await createTask(user, {
        id: 'weekly-1',
        title: 'Bins out',
        start_at: '2026-01-05T18:00:00Z',
        repeater: 'FREQ=WEEKLY',
      });
      await createTask(user, { id: 'once-1', title: 'Dentist', start_at: '2026-03-02T09:00:00Z' });
      const ids = async (filter: string) => {
        const answer = multistatus(
          await request(user, { method: 'REPORT', url: inbox(user), headers: { depth: '1' }, body: query(filter) }),
        );
        return [...answer.responses.keys()].map((href) => href.slice(inbox(user).length, -'.ics'.length)).sort();
      };
      expect(await ids('')).toEqual(['done-1', 'once-1', 'open-1', 'weekly-1']);
      expect(await ids('<c:prop-filter name="COMPLETED"><c:is-not-defined/></c:prop-filter>')).toEqual([
        'once-1',
        'open-1',
        'weekly-1',
      ]);
      expect(
        await ids(
          '<c:prop-filter name="STATUS"><c:text-match negate-condition="yes">COMPLETED</c:text-match></c:prop-filter>',
        ),
      ).toEqual(['once-1', 'open-1', 'weekly-1']);
      expect(await ids('<c:prop-filter name="SUMMARY"><c:text-match>buy milk</c:text-match></c:prop-filter>')).toEqual([
        'open-1',
      ]);
      expect(
        await ids(
          '<c:prop-filter name="SUMMARY"><c:text-match collation="i;octet">buy milk</c:text-match></c:prop-filter>',
        ),
      ).toEqual([]);
      expect(
        await ids(
          '<c:prop-filter name="SUMMARY"><c:text-match collation="i;unicode-casemap">BUY BREAD</c:text-match></c:prop-filter>',
        ),
      ).toEqual(['done-1']);
      // A Monday in June: the weekly task's 23rd occurrence falls in it, the dentist does not.
      expect(await ids('<c:time-range start="20260608T000000Z" end="20260609T000000Z"/>')).toEqual(['weekly-1']);
      const unknown = await request(user, {
        method: 'REPORT',
        url: inbox(user),
        body: query(
          '<c:prop-filter name="SUMMARY"><c:text-match collation="i;klingon">x</c:text-match></c:prop-filter>',
        ),
      });
      expect(unknown.status).toBe(403);
      expect(precondition(unknown)).toBe('supported-collation');
      const expanded = multistatus(
        await request(user, {
          method: 'REPORT',
          url: inbox(user),
          body: query(
            '<c:time-range start="20260601T000000Z" end="20260616T000000Z"/>',
            '<c:calendar-data><c:expand start="20260601T000000Z" end="20260616T000000Z"/></c:calendar-data>',
          ),
        }),
      );
      const data = expanded.responses.get(`${inbox(user)}weekly-1.ics`)?.props.get('calendar-data')?.text ?? '';
      // Mondays 1, 8 and 15 June.
      expect(data.match(/RECURRENCE-ID/g)).toHaveLength(3);
      expect(data).not.toContain('RRULE');
    });

    it('streams a large collection, every task once, with the same answer as a small one', async () => {
      const user = await harness.newUser();
      for (let page = 0; page < 3; page += 1) {
        const tasks = Array.from({ length: 1000 }, (_, index) => ({
          id: `bulk-${page}-${index}`,
          title: `Bulk ${index} & more`,
        }));
        expect((await v1(user, 'POST', '/v1/tasks', tasks)).status).toBe(200);
      }
      const answer = await request(user, {
        method: 'PROPFIND',
        url: inbox(user),
        headers: { depth: '1' },
        body: propfindBody('d:getetag', 'd:displayname'),
      });
      // Past 256 KB the answer streams: chunked, no length known in advance.
      expect(answer.text.length).toBeGreaterThan(256 * 1024);
      expect(answer.headers['content-length']).toBeUndefined();
      const listed = multistatus(answer);
      const hrefs = [...listed.responses.keys()].filter((href) => href !== inbox(user));
      expect(hrefs).toHaveLength(3000);
      expect(new Set(hrefs).size).toBe(3000);
      expect(listed.responses.get(`${inbox(user)}bulk-2-999.ics`)?.missing.has('displayname')).toBe(true);
    });

    it('multigets by href, a missing one a 404 of its own', async () => {
      const user = await harness.newUser();
      await createTask(user, { id: 'here', title: 'Here' });
      const answer = multistatus(
        await request(user, {
          method: 'REPORT',
          url: inbox(user),
          body:
            `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:prop><d:getetag/><c:calendar-data/></d:prop>` +
            `<d:href>${inbox(user)}here.ics</d:href><d:href>${inbox(user)}gone.ics</d:href></c:calendar-multiget>`,
        }),
      );
      expect(answer.responses.get(`${inbox(user)}here.ics`)?.props.get('calendar-data')?.text).toContain(
        'SUMMARY:Here',
      );
      expect(answer.responses.get(`${inbox(user)}gone.ics`)?.status).toBe('HTTP/1.1 404 Not Found');
    });

    it('syncs a collection on the /v1 cursor: changes and deletions since, exactly, in pages that continue', async () => {
      const user = await harness.newUser();
      const sync = async (token: string, limit?: number) =>
        multistatus(
          await request(user, {
            method: 'REPORT',
            url: inbox(user),
            headers: { depth: '1' },
            body:
              `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level>` +
              `${limit === undefined ? '' : `<d:limit><d:nresults>${limit}</d:nresults></d:limit>`}<d:prop><d:getetag/></d:prop></d:sync-collection>`,
          }),
        );
      await createTask(user, { id: 't1', title: 'one' });
      await createTask(user, { id: 't2', title: 'two' });
      const first = await sync('');
      expect([...first.responses.keys()].sort()).toEqual([`${inbox(user)}t1.ics`, `${inbox(user)}t2.ics`]);
      const token = first.syncToken ?? '';
      expect((await sync(token)).responses.size).toBe(0);
      await v1(user, 'POST', '/v1/tasks', { id: 't1', title: 'one, changed' });
      await v1(user, 'POST', '/v1/tasks', { id: 't2', deleted: '2026-11-01T00:00:00Z' });
      await createTask(user, { id: 't3', title: 'three' });
      const changes = await sync(token);
      expect(changes.responses.get(`${inbox(user)}t1.ics`)?.props.has('getetag')).toBe(true);
      expect(changes.responses.get(`${inbox(user)}t2.ics`)?.status).toBe('HTTP/1.1 404 Not Found');
      expect(changes.responses.has(`${inbox(user)}t3.ics`)).toBe(true);
      // In pages of two: the first is cut (507 for the collection), its token continues exactly.
      const page = await sync(token, 2);
      expect(page.responses.get(inbox(user))?.status).toBe('HTTP/1.1 507 Insufficient Storage');
      const rest = await sync(page.syncToken ?? '');
      expect(
        [...page.responses.keys(), ...rest.responses.keys()].filter((href) => href !== inbox(user)).sort(),
      ).toEqual([...changes.responses.keys()].sort());
      // The token it holds, in another life of the store (from before a restore, or another store).
      const otherLife = token.replace(/c2\.[0-9a-z]+\./, 'c2.0000000000000000.');
      expect(otherLife).not.toBe(token);
      for (const bad of [
        otherLife,
        'http://task-service.invalid/sync/c1.zzzzzzz',
        'urn:nonsense',
        'http://task-service.invalid/sync/c1.',
      ]) {
        const refused = await request(user, {
          method: 'REPORT',
          url: inbox(user),
          body: `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${bad}</d:sync-token><d:prop/></d:sync-collection>`,
        });
        expect(refused.status, bad).toBe(403);
        expect(precondition(refused)).toBe('valid-sync-token');
      }
    });
  });

  describe('collections as projects', () => {
    it('makes, renames and deletes projects; the inbox stays', async () => {
      const user = await harness.newUser();
      await createTask(user, { title: 'x', project: 'Errands' });
      const mk = (segment: string, name?: string) =>
        request(user, {
          method: 'MKCALENDAR',
          url: `${home(user)}${segment}/`,
          ...(name === undefined
            ? {}
            : {
                body: `<c:mkcalendar xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:set><d:prop><d:displayname>${name}</d:displayname></d:prop></d:set></c:mkcalendar>`,
              }),
        });
      expect((await mk('errands2', 'Errands')).status).toBe(201);
      expect((await mk('errands2', 'Again')).status).toBe(405);
      expect((await mk('bad segment!')).status).toBe(403);
      expect((await mk('inbox')).status).toBe(405);
      const projects = z.object({ entries: z.array(z.looseObject({ id: z.string(), name: z.string() })) });
      const names = async () =>
        projects
          .parse((await v1(user, 'GET', '/v1/projects')).json)
          .entries.map((project) => [project.id, project.name]);
      expect(await names()).toContainEqual(['errands2', 'Errands (2)']);
      const mkcol = await request(user, {
        method: 'MKCOL',
        url: `${home(user)}extended/`,
        body: `<d:mkcol xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:set><d:prop><d:resourcetype><d:collection/><c:calendar/></d:resourcetype><d:displayname>Extended</d:displayname></d:prop></d:set></d:mkcol>`,
      });
      expect(mkcol.status).toBe(201);
      const patch = multistatus(
        await request(user, {
          method: 'PROPPATCH',
          url: `${home(user)}errands2/`,
          body: `<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>Shopping</d:displayname></d:prop></d:set></d:propertyupdate>`,
        }),
      );
      expect([...patch.responses.values()][0]?.props.has('displayname')).toBe(true);
      expect(await names()).toContainEqual(['errands2', 'Shopping']);
      // A color is kept per project and shown as Apple's calendar-color; one property refused refuses all.
      const colored = multistatus(
        await request(user, {
          method: 'PROPPATCH',
          url: `${home(user)}errands2/`,
          body: `<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><a:calendar-color>#FF2968FF</a:calendar-color></d:prop></d:set></d:propertyupdate>`,
        }),
      );
      expect([...colored.responses.values()][0]?.props.has('calendar-color')).toBe(true);
      const mixed = multistatus(
        await request(user, {
          method: 'PROPPATCH',
          url: `${home(user)}errands2/`,
          body: `<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><d:displayname>Not this</d:displayname><d:getetag>"1"</d:getetag></d:prop></d:set></d:propertyupdate>`,
        }),
      );
      expect([...mixed.responses.values()][0]?.missing).toEqual(new Set(['displayname', 'getetag']));
      expect(await names()).toContainEqual(['errands2', 'Shopping']);
      const shown = multistatus(
        await request(user, {
          method: 'PROPFIND',
          url: home(user),
          headers: { depth: '1' },
          body: propfindBody('a:calendar-color', 'd:displayname'),
        }),
      );
      expect(shown.responses.get(`${home(user)}errands2/`)?.props.get('calendar-color')?.text).toBe('#FF2968FF');
      // The inbox has no color: a 404 in its own propstat.
      expect(shown.responses.get(inbox(user))?.missing.has('calendar-color')).toBe(true);
      const task = await createTask(user, { title: 'in shopping', project_id: 'errands2' });
      expect((await request(user, { method: 'DELETE', url: `${home(user)}errands2/` })).status).toBe(204);
      const trashed = wireTask.parse((await v1(user, 'GET', `/v1/tasks/${task.id}`)).json);
      expect(trashed.trashed).not.toBeNull();
      expect(trashed.deleted).toBeNull();
      expect(await names()).not.toContainEqual(['errands2', 'Shopping']);
      expect((await request(user, { method: 'DELETE', url: inbox(user) })).status).toBe(403);
      // The segment of a deleted project brings it back, empty, with the new name.
      expect((await mk('errands2', 'Back')).status).toBe(201);
      expect(await names()).toContainEqual(['errands2', 'Back']);
    });
  });

  it('counts CalDAV requests in /metrics by method and status', async () => {
    const metrics = new ServiceMetrics();
    const counted = await startHarness(engine, { app: { caldav: true, metrics } });
    try {
      const user = await counted.newUser();
      await dav(counted.app, user, { method: 'PROPFIND', url: '/dav/', headers: { depth: '0' } });
      await dav(counted.app, user, {
        method: 'PUT',
        url: `/dav/calendars/${user.username}/inbox/x.ics`,
        body: 'nonsense',
      });
      const text = await metrics.registry.metrics();
      expect(text).toMatch(
        /task_service_http_request_duration_seconds_count\{method="PROPFIND",route="\/dav\/\*",status="207"\} 1/,
      );
      expect(text).toMatch(
        /task_service_http_request_duration_seconds_count\{method="PUT",route="\/dav\/\*",status="403"\} 1/,
      );
    } finally {
      await counted.close();
    }
  });

  it('answers 404 on every CalDAV path when turned off', async () => {
    const off = await startHarness(engine, { app: { caldav: false } });
    try {
      const user = await off.newUser();
      for (const [method, url] of [
        ['PROPFIND', '/dav/'],
        ['GET', '/.well-known/caldav'],
        ['REPORT', `/dav/calendars/${user.username}/inbox/`],
      ] as const) {
        expect((await dav(off.app, user, { method, url })).status, `${method} ${url}`).toBe(404);
      }
    } finally {
      await off.close();
    }
  });
});
