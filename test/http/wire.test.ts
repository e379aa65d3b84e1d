/**
 * The wire conventions every answer follows: HTML escaping of every string (and only on output),
 * UTF-8 byte for byte, the JSON content type and nosniff on every answer, gzip both ways.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { call, ENGINES } from '../support/harness.js';
import {
  entriesOf,
  escapeHtml,
  expectError,
  expectJsonHeaders,
  gzipJson,
  ok,
  projectList,
  SPECIALS,
  SPECIALS_ESCAPED,
  taskList,
  unescapeAll,
  wireContext,
  wireProject,
  wireSettings,
  wireTask,
  type WireTask,
} from './support/api.js';
import { useHarness } from './support/setup.js';

const JSON_HEADER = { 'content-type': 'application/json; charset=utf-8' };

/** Text that survives only a service that neither normalizes nor re-encodes it. */
const UNICODE = [
  'family 👩‍👩‍👧‍👦',
  'flag 🇯🇵',
  'CJK 漢字かなカナ한국어',
  'combining e\u0301 vs precomposed \u00e9',
  'Hangul jamo \u1100\u1161\u11a8',
  'RTL שלום عربى',
  'astral 𝄞 𐍈',
  'zero width \u200d joiner, BOM \ufeff inside',
].join(' | ');

describe.each(ENGINES)('wire conventions on %s', (engine) => {
  const suite = useHarness(engine);

  describe('HTML escaping', () => {
    it('escapes the five characters in every string field of a task, in every answer', async () => {
      const { client } = await suite().newClient();
      const body = {
        title: SPECIALS,
        notes: `${SPECIALS}\nsecond line`,
        tags: [SPECIALS, '<tag>'],
        project: `P ${SPECIALS}`,
        context: `@C ${SPECIALS}`,
      };
      const answer = await client.post('/v1/tasks', body);
      const created = ok(answer, wireTask);
      const expected = {
        title: SPECIALS_ESCAPED,
        notes: `${SPECIALS_ESCAPED}\nsecond line`,
        tags: [SPECIALS_ESCAPED, '&lt;tag&gt;'],
        project: `P ${SPECIALS_ESCAPED}`,
        context: `@C ${SPECIALS_ESCAPED}`,
      };
      expect(created).toMatchObject(expected);
      // Nothing of the five is left raw anywhere in the JSON text, apart from JSON's own quotes.
      expect(answer.text.replaceAll('\\"', '')).not.toMatch(/[<>']|&(?!amp;|lt;|gt;|#39;|quot;)/);
      expect(answer.text).not.toContain('\\"');

      expect(await client.getTask(created.id)).toMatchObject(expected);
      expect((await client.listTasks()).entries[0]).toMatchObject(expected);
      const [inArray] = await client.postTasks([{ id: created.id, priority: 1 }]);
      expect(inArray).toMatchObject(expected);
    });

    it('escapes project and context names and notes in their own answers', async () => {
      const { client } = await suite().newClient();
      const project = await client.createProject({ name: SPECIALS, notes: SPECIALS });
      expect(project).toMatchObject({ name: SPECIALS_ESCAPED, notes: SPECIALS_ESCAPED });
      const context = await client.createContext({ name: SPECIALS });
      expect(context.name).toBe(SPECIALS_ESCAPED);
      const projects = ok(await client.get('/v1/projects'), projectList);
      expect(projects.entries.map((entry) => entry.name)).toEqual([SPECIALS_ESCAPED]);
      expect(ok(await client.get(`/v1/projects/${project.id}`), wireProject).notes).toBe(SPECIALS_ESCAPED);
      expect(ok(await client.get(`/v1/contexts/${context.id}`), wireContext).name).toBe(SPECIALS_ESCAPED);
    });

    it('escapes settings: nickname and language', async () => {
      const { client } = await suite().newClient();
      const answer = await client.post('/v1/settings', { nickname: SPECIALS, language: `x-<'&">` });
      const settings = ok(answer, wireSettings);
      expect(settings.nickname).toBe(SPECIALS_ESCAPED);
      expect(settings.language).toBe('x-&lt;&#39;&amp;&quot;&gt;');
      expect(await client.settings()).toMatchObject({
        nickname: SPECIALS_ESCAPED,
        language: 'x-&lt;&#39;&amp;&quot;&gt;',
      });
    });

    it('escapes retmsg and reqdata', async () => {
      const { client } = await suite().newClient();
      const unsupported = await client.get('/v1/tasks?x%3C%3E%27%22%26=1');
      expectError(unsupported, {
        status: 400,
        retcode: 'E003',
        retmsg: 'parameter is not supported: x&lt;&gt;&#39;&quot;&amp;',
        reqdata: 'x%3C%3E%27%22%26=1',
      });

      const missing = await client.get('/v1/tasks/%3C%3E%27%22%26');
      expectError(missing, { status: 400, retcode: 'E007', retmsg: 'not found: task &lt;&gt;&#39;&quot;&amp;' });

      const body = JSON.stringify({ title: '', notes: SPECIALS });
      const invalid = await client.post('/v1/tasks', body, JSON_HEADER);
      expect(invalid.json).toMatchObject({
        reqdata: `{&quot;title&quot;:&quot;&quot;,&quot;notes&quot;:&quot;${SPECIALS_ESCAPED.replaceAll('&quot;', '\\&quot;')}&quot;}`,
      });
      const unparsable = await client.post('/v1/tasks', `<xml a='1'>&amp;</xml>`, JSON_HEADER);
      expect(unparsable.json).toMatchObject({
        retcode: 'E001',
        reqdata: '&lt;xml a=&#39;1&#39;&gt;&amp;amp;&lt;/xml&gt;',
      });
    });

    it('echoes a raw query with its ampersands escaped', async () => {
      const { client } = await suite().newClient();
      const answer = await client.get('/v1/tasks?limit=0&cursor=x');
      expectError(answer, { status: 400, retcode: 'E004', retmsg: /^invalid parameter: limit/ });
      expect(answer.json).toMatchObject({ reqdata: 'limit=0&amp;cursor=x' });
    });

    it('stores raw text: a whole task sent back unescaped keeps its text, never escaped twice', async () => {
      const { client } = await suite().newClient();
      const looksEscaped = 'already &lt;escaped&gt; &amp; &#39;kept&#39;';
      const created = await client.createTask({ title: SPECIALS, notes: looksEscaped, tags: ['a&b'], project: 'R&D' });
      expect(created.notes).toBe(escapeHtml(looksEscaped));

      const asClientHolds = wireTask.parse(unescapeAll(created));
      expect(asClientHolds).toMatchObject({ title: SPECIALS, notes: looksEscaped, tags: ['a&b'], project: 'R&D' });
      const sentBack = await client.createTask({ ...asClientHolds, priority: 2 });
      expect(sentBack).toMatchObject({
        title: SPECIALS_ESCAPED,
        notes: escapeHtml(looksEscaped),
        tags: ['a&amp;b'],
        project: 'R&amp;D',
        project_id: created.project_id,
        priority: 2,
      });
      // Twice more, for good measure: nothing accumulates.
      const again = await client.createTask(wireTask.parse(unescapeAll(sentBack)));
      expect({ ...again, rev: 0, updated: '' }).toEqual({ ...sentBack, rev: 0, updated: '' });
      const projects = ok(await client.get('/v1/projects'), projectList);
      expect(projects.entries.map((project) => project.name)).toEqual(['R&amp;D']);
    });
  });

  describe('UTF-8', () => {
    it('returns text byte for byte, written raw rather than as \\u escapes', async () => {
      const { client, user } = await suite().newClient();
      const created = await client.createTask({
        title: UNICODE,
        notes: UNICODE,
        tags: ['漢字', '🇯🇵', 'e\u0301'],
        project: '家 🏠',
      });
      expect(created).toMatchObject({
        title: UNICODE,
        notes: UNICODE,
        tags: ['漢字', '🇯🇵', 'e\u0301'],
        project: '家 🏠',
      });

      for (const url of [`/v1/tasks/${created.id}`, '/v1/tasks', '/v1/projects']) {
        const response = await suite().harness.app.inject({ url, headers: { authorization: `OAuth ${user.token}` } });
        expect(response.statusCode).toBe(200);
        const bytes = response.rawPayload;
        expect(bytes.toString('utf8')).not.toMatch(/\\u[0-9a-fA-F]{4}/);
        if (url !== '/v1/projects') expect(bytes.includes(Buffer.from(UNICODE, 'utf8'))).toBe(true);
        expect(bytes.includes(Buffer.from('家 🏠', 'utf8'))).toBe(true);
      }
      // Not normalized: decomposed and precomposed stay different.
      const got = await client.getTask(created.id);
      expect(got.tags[2]).toBe('e\u0301');
      expect(got.tags[2]).not.toBe('\u00e9');
      expect(Buffer.from(got.title, 'utf8').equals(Buffer.from(UNICODE, 'utf8'))).toBe(true);
    });

    it('reads a UTF-8 body sent as raw bytes, with or without a BOM-free charset parameter', async () => {
      const { client } = await suite().newClient();
      const bytes = Buffer.from(JSON.stringify({ title: UNICODE }), 'utf8');
      expect(ok(await client.post('/v1/tasks', bytes, JSON_HEADER), wireTask).title).toBe(UNICODE);
      expect(ok(await client.post('/v1/tasks', bytes, { 'content-type': 'application/json' }), wireTask).title).toBe(
        UNICODE,
      );
    });

    it('counts title length in characters a user sees as code points, not bytes', async () => {
      const { client } = await suite().newClient();
      const cjk = '漢'.repeat(1000);
      expect(Buffer.byteLength(cjk)).toBe(3000);
      expect((await client.createTask({ title: cjk })).title).toBe(cjk);
    });
  });

  describe('headers', () => {
    it('answers JSON in UTF-8 with nosniff on success and error alike', async () => {
      const { client, user } = await suite().newClient();
      const task = await client.createTask({ title: 'x' });
      const app = suite().harness.app;
      const answers = [
        await client.get('/v1/tasks'),
        await client.get(`/v1/tasks/${task.id}`),
        await client.get('/v1/settings'),
        await client.get('/v1/projects'),
        await client.get('/v1/contexts'),
        await client.post('/v1/tasks', { title: 'y' }),
        await client.post('/v1/tasks', [{ title: 'z' }]),
        await client.post('/v1/settings', { nickname: 'n' }),
        await call(app, { url: '/healthz' }),
        await call(app, { url: '/v1/tasks' }),
        await call(app, { url: '/v1/tasks', token: user.readToken, body: { title: 'x' } }),
        await client.get('/nowhere'),
        await client.get('/v1/tasks?bad=1'),
        await client.post('/v1/tasks', '{', JSON_HEADER),
        await client.post('/v1/tasks', 'x', { 'content-type': 'text/plain' }),
        await call(app, { method: 'DELETE', url: '/v1/tasks', token: user.token }),
      ];
      for (const answer of answers) {
        expectJsonHeaders(answer);
        expect(answer.headers['x-powered-by']).toBeUndefined();
        expect(() => JSON.parse(answer.text) as unknown).not.toThrow();
      }
    });
  });

  describe('gzip', () => {
    it('compresses a large list when the client accepts gzip; the gunzipped text is the JSON', async () => {
      const { client } = await suite().newClient();
      await client.postTasks(
        Array.from({ length: 40 }, (_, index) => ({ title: `task ${index} ${UNICODE}`, notes: SPECIALS })),
      );
      const plain = await client.get('/v1/tasks');
      expect(plain.headers['content-encoding']).toBeUndefined();
      const list = ok(plain, taskList);
      expect(list.entries).toHaveLength(40);

      const response = await suite().harness.app.inject({
        url: '/v1/tasks',
        headers: { authorization: `OAuth ${client.token}`, 'accept-encoding': 'gzip' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      const text = gunzipSync(response.rawPayload).toString('utf8');
      expect(text).toBe(plain.text);
    });

    it('compresses a streamed list (larger than one chunk) the same way', async () => {
      const { client } = await suite().newClient();
      const notes = 'n'.repeat(2000);
      await client.postTasks(Array.from({ length: 200 }, (_, index) => ({ title: `t${index} & <${index}>`, notes })));
      const plain = await client.get('/v1/tasks');
      const list = ok(plain, taskList);
      expect(list.entries).toHaveLength(200);
      expect(plain.text.length).toBeGreaterThan(256 * 1024);
      const response = await suite().harness.app.inject({
        url: '/v1/tasks',
        headers: { authorization: `OAuth ${client.token}`, 'accept-encoding': 'br;q=1, gzip;q=0.8' },
      });
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(response.rawPayload).toString('utf8')).toBe(plain.text);
    });

    it('accepts a gzip request body, one task or an array', async () => {
      const { client } = await suite().newClient();
      const headers = { ...JSON_HEADER, 'content-encoding': 'gzip' };
      const one = ok(await client.post('/v1/tasks', gzipJson({ title: UNICODE, notes: SPECIALS }), headers), wireTask);
      expect(one).toMatchObject({ title: UNICODE, notes: SPECIALS_ESCAPED });
      const many = ok(
        await client.post('/v1/tasks', gzipJson([{ title: 'a' }, { title: 'b' }]), headers),
        entriesOf(wireTask),
      );
      expect(many.entries.map((task: WireTask) => task.title)).toEqual(['a', 'b']);
      const settings = ok(
        await client.post('/v1/settings', gzipJson({ nickname: 'zipped' }), {
          ...JSON_HEADER,
          'content-encoding': 'GZIP',
        }),
        wireSettings,
      );
      expect(settings.nickname).toBe('zipped');
      expect((await client.listTasks()).entries.map((task) => task.title)).toEqual([UNICODE, 'a', 'b']);
    });

    it('compresses a large error answer too', async () => {
      const { client } = await suite().newClient();
      const body = JSON.stringify({ title: '', notes: 'x'.repeat(20_000) });
      const response = await suite().harness.app.inject({
        method: 'POST',
        url: '/v1/tasks',
        payload: body,
        headers: { authorization: `OAuth ${client.token}`, 'accept-encoding': 'gzip', ...JSON_HEADER },
      });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const error: unknown = JSON.parse(gunzipSync(response.rawPayload).toString('utf8'));
      expect(error).toMatchObject({ retcode: 'E004', reqdata: escapeHtml(body) });
    });

    it('echoes the inflated text of a gzip body in an error', async () => {
      const { client } = await suite().newClient();
      const answer = await client.post('/v1/tasks', gzipJson({ title: '' }), {
        ...JSON_HEADER,
        'content-encoding': 'gzip',
      });
      expectError(answer, {
        status: 400,
        retcode: 'E004',
        retmsg: /^invalid parameter: title/,
        reqdata: '{"title":""}',
      });
    });
  });
});
