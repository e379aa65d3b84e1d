/**
 * Hostile requests for the property tests (issue #6, 3), as fast-check arbitraries. Every request
 * made by `mustFail` is one the contract refuses, whatever the random choices: the answer must be
 * a 4xx with the error body, and nothing stored may change. `queries` also makes acceptable ones
 * and says which ones must fail.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { z } from 'zod';
import { RETCODES, statusOf, type Retcode } from '../../../src/http/wire/errors.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

export interface HostileRequest {
  /** The family the request comes from: counted, and named when it fails. */
  readonly family: string;
  readonly method: Method;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** False only for queries the contract accepts (answered 200 with a list). */
  readonly mustFail: boolean;
}

const JSON_TYPE = { 'content-type': 'application/json' };

function post(
  family: string,
  body: Buffer | string,
  headers: Readonly<Record<string, string>> = JSON_TYPE,
): HostileRequest {
  return {
    family,
    method: 'POST',
    url: '/v1/tasks',
    headers,
    body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    mustFail: true,
  };
}

function isJsonText(bytes: Buffer): boolean {
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** A task the service would store, so that a refused request is refused for the part made hostile. */
const validTask = fc.record({
  title: fc
    .string({ minLength: 1, maxLength: 40 })
    .filter((title) => !title.includes('\0') && title.trim() === title && title !== ''),
  notes: fc.string({ maxLength: 100 }).filter((notes) => !notes.includes('\0')),
  priority: fc.integer({ min: 0, max: 3 }),
  tags: fc.array(fc.constantFrom('a', 'b', 'home', 'work'), { maxLength: 3 }),
});

/** Text that is not JSON: random strings and bytes, prefixes of real bodies, blank bodies. */
const brokenJson: fc.Arbitrary<HostileRequest> = fc
  .oneof(
    fc.string({ maxLength: 200 }).map((text) => Buffer.from(text, 'utf8')),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.tuple(validTask, fc.nat()).map(([task, cut]) => {
      const text = JSON.stringify(task);
      return Buffer.from(text.slice(0, cut % text.length), 'utf8');
    }),
    fc
      .constantFrom(
        '',
        ' ',
        '\n',
        '\t\r\n',
        '{',
        '}',
        '[',
        '{"title":',
        '{"title":"a",}',
        "{'title':'a'}",
        '{title:"a"}',
        'NaN',
        'undefined',
        '{"title":"a"}}',
        '[{"title":"a"},]',
      )
      .map((text) => Buffer.from(text, 'utf8')),
  )
  .filter((bytes) => !isJsonText(bytes))
  .map((bytes) => post('broken JSON', bytes));

/** Nesting a few thousand to a few hundred thousand levels deep, in the body or inside a field. */
const deepJson: fc.Arbitrary<HostileRequest> = fc
  .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.integer({ min: 0, max: 5 }), fc.boolean())
  .map(([depth, shape, withKey]) => {
    let text: string;
    switch (shape) {
      case 0:
        text = '['.repeat(depth) + ']'.repeat(depth);
        break;
      case 1:
        text = `{"title":${'['.repeat(depth)}${']'.repeat(depth)}}`;
        break;
      case 2:
        text = `{"title":"","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
        break;
      case 3:
        text = `{"title":"deep","tags":${'['.repeat(depth)}"t"${']'.repeat(depth)}}`;
        break;
      case 4:
        text = `[${'{"title":"x","notes":'.repeat(depth)}null${'}'.repeat(depth)}]`;
        break;
      default:
        text = '['.repeat(depth);
    }
    // An Idempotency-Key makes the service keep the request: the deep body must not trip that either.
    const headers = withKey ? { ...JSON_TYPE, 'idempotency-key': `deep-${depth}-${shape}` } : JSON_TYPE;
    return post('deep JSON', text, headers);
  });

const notAString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 3 }),
);

const notABoolean = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 5 }),
  fc.constant({}),
  fc.constant([true]),
  fc.constantFrom('true', 'false', 0, 1),
);

/** Date texts no reader of dates accepts: wrong forms, impossible days, times and offsets. */
const malformedDate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2026-02-30',
    '2026-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-11-00',
    '2026-11-32',
    '2026-11-21 24:00:00 +0000',
    '2026-11-21 23:60:00 +0000',
    '2026-11-21 23:59:61 +0000',
    '2026-11-21 09:30:00 +2400',
    '2026-11-21 09:30:00 +0099',
    '2026-11-21 09:30:00 -9999',
    '2026-11-21T25:00:00Z',
    '2026-11-21T10:00:00+25:00',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '0000-00-00 00:00:00 +0000',
    '99999-01-01',
    'NaN',
    'Infinity',
    '1e10',
    'now',
    'yesterday',
    '2026/11/21',
    '21.11.2026',
    '2026-11-21 09:30',
    '2026-11-21 09:30:00',
    '2026-11-21T09:30:00',
    '2026-11-21T09:30:00.Z',
    ' 2026-11-21',
    '2026-11-21\u0000',
  ),
  fc
    .record({
      year: fc.integer({ min: 0, max: 99_999 }),
      month: fc.integer({ min: 0, max: 99 }),
      day: fc.integer({ min: 0, max: 99 }),
      hour: fc.integer({ min: 0, max: 99 }),
      offset: fc.integer({ min: -9999, max: 9999 }),
    })
    .filter(
      ({ year, month, day, hour, offset }) =>
        year > 9999 ||
        month < 1 ||
        month > 12 ||
        day < 1 ||
        day > 31 ||
        hour > 23 ||
        Math.abs(offset % 100) > 59 ||
        Math.abs(offset) > 2359,
    )
    .map(
      ({ year, month, day, hour, offset }) =>
        `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} ` +
        `${String(hour).padStart(2, '0')}:00:00 ${offset < 0 ? '-' : '+'}${String(Math.abs(offset)).padStart(4, '0')}`,
    ),
);

/**
 * Real dates a stored field cannot hold: the store keeps microseconds exactly only from
 * 1684-07-28 to 2255-06-05 (a query's `updated_after` may name any of them).
 */
const unstorableDate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0001-01-01',
    '1000-01-01 00:00:00 +0000',
    '1684-01-01',
    '2256-01-01',
    '9999-12-31 23:59:59 +0000',
    '9999-12-31T23:59:59Z',
  ),
  fc
    .tuple(
      fc.oneof(fc.integer({ min: 1, max: 1683 }), fc.integer({ min: 2256, max: 9999 })),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
    )
    .map(
      ([year, month, day]) =>
        `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    ),
);

/** Date texts a stored date-time field must refuse. */
const absurdDate: fc.Arbitrary<string> = fc.oneof(malformedDate, unstorableDate);

const DATE_FIELDS = ['start_at', 'end_at', 'completed', 'trashed', 'deleted'] as const;

/** One field of a task made wrong: its type, its range, its length, its form. */
const wrongField: fc.Arbitrary<readonly [string, unknown]> = fc.oneof(
  fc.tuple(
    fc.constant('id'),
    fc.oneof(notAString, fc.constantFrom('', 'a b', 'ü', 'a#b', 'x'.repeat(65), 'a?b', 'a\u0000')),
  ),
  fc.tuple(
    fc.constant('title'),
    fc.oneof(notAString, fc.constantFrom(null, '', 'x'.repeat(1001), 'a\u0000b', '\ud800')),
  ),
  fc.tuple(fc.constant('notes'), fc.oneof(notAString, fc.constantFrom('x'.repeat(100_001), '\u0000', 'a\udfff'))),
  fc.tuple(
    fc.constant('attribute'),
    fc.oneof(notAString, fc.constantFrom(null, '', 'INBOX', 'done', 'plan', 'inbox ')),
  ),
  fc.tuple(fc.constant('all_day'), notABoolean),
  fc.tuple(fc.constantFrom(...DATE_FIELDS), fc.oneof(notAString, absurdDate)),
  fc.tuple(fc.constantFrom('project', 'context'), fc.oneof(notAString, fc.constant('p'.repeat(201)))),
  fc.tuple(
    fc.constantFrom('project_id', 'context_id'),
    fc.oneof(notAString, fc.constantFrom('no-such-label', 'x'.repeat(65))),
  ),
  fc.tuple(
    fc.constant('tags'),
    fc.oneof(
      notAString.filter((value) => !Array.isArray(value)),
      fc.constant('home'),
      fc.constant(['']),
      fc.constant(['t'.repeat(101)]),
      fc.constant(Array.from({ length: 51 }, (_unused, index) => `t${index}`)),
      fc.constant([1, 2]),
      fc.constant([['nested']]),
      fc.constant([null]),
    ),
  ),
  fc.tuple(
    fc.constant('priority'),
    fc.oneof(
      fc.constantFrom(-1, 4, 1.5, 1e9, -0.5, '1', null, true, [1], {}),
      fc.integer({ min: 4 }),
      fc.integer({ max: -1 }),
    ),
  ),
  fc.tuple(
    fc.constant('repeater'),
    fc.oneof(
      notAString,
      fc.constantFrom('FREQ=SOMETIMES', 'FREQ=WEEKLY;BYDAY=XX', 'hello', 'FREQ=DAILY;INTERVAL=-1', 'r'.repeat(1001)),
    ),
  ),
  fc.tuple(fc.constant('if_rev'), fc.oneof(fc.constantFrom(-1, 1.5, '1', true, [], {}), fc.integer({ max: -1 }))),
);

/** Bodies with one wrong field: a new task, or a change of one of the victim's tasks; one or in an array. */
function wrongTypes(victimIds: readonly string[]): fc.Arbitrary<HostileRequest> {
  return fc
    .tuple(
      wrongField,
      validTask,
      fc.option(fc.constantFrom(...victimIds), { nil: undefined }),
      fc.integer({ min: 0, max: 5 }),
      fc.nat(),
    )
    .map(([[field, value], task, victimId, others, position]) => {
      const base: Record<string, unknown> = victimId === undefined ? { ...task } : { id: victimId };
      // `plan` is refused only without a start_at, and some of the victim's tasks have one.
      const bad = {
        ...base,
        [field]: field === 'attribute' && value === 'plan' && victimId !== undefined ? 'Plan' : value,
      };
      if (others === 0) return post(`wrong ${field}`, JSON.stringify(bad));
      // The rest of the array is valid, new tasks: the bad one must refuse all of them.
      const items: unknown[] = Array.from({ length: others }, (_unused, index) => ({ title: `fine ${index}` }));
      items.splice(position % (others + 1), 0, bad);
      return post(`wrong ${field} in an array`, JSON.stringify(items));
    });
}

/** Strings past their limits, bodies past 1 MiB, lengths in characters and in UTF-8 bytes. */
const hugeStrings: fc.Arbitrary<HostileRequest> = fc
  .tuple(fc.integer({ min: 0, max: 6 }), fc.constantFrom('x', 'ü', '😀', '中', '&'), fc.integer({ min: 1, max: 3000 }))
  .map(([shape, unit, extra]) => {
    switch (shape) {
      case 0:
        return post('huge title', JSON.stringify({ title: unit.repeat(1000 + extra) }));
      case 1:
        return post('huge notes', JSON.stringify({ title: 't', notes: unit.repeat(100_000 + extra) }));
      case 2:
        return post('huge tag', JSON.stringify({ title: 't', tags: [unit.repeat(100 + extra)] }));
      case 3:
        return post('huge project', JSON.stringify({ title: 't', project: unit.repeat(200 + extra) }));
      case 4:
        return post('huge body', JSON.stringify({ title: 't', notes: 'n'.repeat(1024 * 1024 + extra) }));
      case 5:
        return post('huge key', `{"title":"","${'k'.repeat(200_000 + extra)}":1}`);
      default:
        return post('huge array', JSON.stringify(Array.from({ length: 1001 + (extra % 50) }, () => ({ title: 'a' }))));
    }
  });

/** Byte sequences no UTF-8 decoder accepts: overlong forms, surrogates, stray and cut-off bytes. */
const INVALID_UTF8 = [
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xff],
  [0xfe],
  [0x80],
  [0xe2, 0x82],
  [0xf5, 0x80, 0x80, 0x80],
  [0xf0, 0x9f, 0x98],
];

const invalidUtf8: fc.Arbitrary<HostileRequest> = fc
  .tuple(fc.constantFrom(...INVALID_UTF8), fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), fc.boolean())
  .map(([bad, before, after, inKey]) => {
    const parts = inKey ? ['{"title":"t","', '":1}'] : ['{"title":"', '"}'];
    return post(
      'invalid UTF-8',
      Buffer.concat([
        Buffer.from(parts[0] + JSON.stringify(before).slice(1, -1)),
        Buffer.from(bad),
        Buffer.from(JSON.stringify(after).slice(1, -1) + parts[1]),
      ]),
    );
  });

/** `__proto__`, `constructor`, `prototype` as keys, at the top and nested, in bodies refused for another field. */
const protoKeys: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    fc.constantFrom('__proto__', 'constructor', 'prototype'),
    fc.integer({ min: 0, max: 3 }),
    fc.constantFrom('"title":""', '"priority":9', '"tags":"x"'),
  )
  .map(([key, shape, refusal]) => {
    const polluting = `{"polluted":"yes","title":"from ${key}","isAdmin":true,"prototype":{"polluted":"yes"}}`;
    const texts = [
      `{"${key}":${polluting},${refusal}}`,
      `{${refusal},"${key}":${polluting}}`,
      `[{"title":"ok"},{"${key}":${polluting},${refusal}}]`,
      `{"tags":{"${key}":["x"]},"title":"","constructor":{"prototype":${polluting}}}`,
    ];
    return post(`${key} keys`, texts[shape] ?? texts[0] ?? '');
  });

const absurdDates: fc.Arbitrary<HostileRequest> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...DATE_FIELDS), absurdDate)
    .map(([field, date]) => post(`absurd ${field}`, JSON.stringify({ title: 't', [field]: date }))),
  malformedDate.map((date): HostileRequest => ({
    family: 'absurd updated_after',
    method: 'GET',
    url: `/v1/tasks?updated_after=${encodeURIComponent(date)}`,
    headers: {},
    mustFail: true,
  })),
);

const QUERY_NAMES = ['limit', 'cursor', 'updated_after', 'access_token'] as const;

/** Query strings: known and unknown names, repeated, empty, oddly encoded; it says when it must fail. */
export function queries(token: string): fc.Arbitrary<HostileRequest> {
  const value = fc.oneof(
    fc.constantFrom(
      '1',
      '10',
      '0',
      '-1',
      '10001',
      '1e3',
      '',
      'c1.0',
      'c1.zz',
      'c2.1',
      'cursor',
      '2026-01-01',
      '%zz',
      '%00',
      '%',
      '+',
      'a%20b',
      'x'.repeat(5000),
    ),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
  );
  const name = fc.oneof(
    fc.constantFrom(
      ...QUERY_NAMES,
      'LIMIT',
      'limit[]',
      'cursor ',
      '',
      'sort',
      'fields',
      '__proto__',
      'constructor',
      'toString',
    ),
    fc.string({ minLength: 1, maxLength: 10 }).map(encodeURIComponent),
  );
  return fc
    .tuple(
      fc.array(fc.tuple(name, fc.option(value, { nil: undefined })), { maxLength: 6 }),
      fc.constantFrom('/v1/tasks', '/v1/projects', '/v1/contexts', '/v1/tasks/'),
    )
    .map(([pairs, path]) => {
      const query = pairs
        .map(([key, given]) =>
          key === 'access_token' && given !== undefined
            ? `access_token=${token}`
            : given === undefined
              ? key
              : `${key}=${given}`,
        )
        .join('&');
      const names = new URLSearchParams(query);
      const seen = new Set<string>();
      let mustFail = false;
      for (const [key] of names) {
        if (seen.has(key) || !QUERY_NAMES.some((known) => known === key)) mustFail = true;
        seen.add(key);
      }
      if (seen.has('cursor') && seen.has('updated_after')) mustFail = true;
      return {
        family: 'query string',
        method: 'GET',
        url: query === '' ? path : `${path}?${query}`,
        headers: {},
        mustFail,
      };
    });
}

/** Bodies declared gzip that are not, or not whole, or of an encoding the service does not take. */
const brokenGzip: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    fc.integer({ min: 0, max: 5 }),
    fc.uint8Array({ minLength: 1, maxLength: 200 }),
    fc.nat(),
    fc.constantFrom('gzip', 'x-gzip', 'GZIP', ' gzip '),
  )
  .map(([shape, bytes, cut, encoding]) => {
    // The JSON inside is refused too (title ""), so no way of reading the body could store it.
    const inner = gzipSync(Buffer.from('{"title":""}'));
    const headers = { ...JSON_TYPE, 'content-encoding': encoding };
    switch (shape) {
      case 0:
        return post('broken gzip', Buffer.from(bytes), headers);
      case 1:
        return post('cut gzip', inner.subarray(0, cut % inner.length), headers);
      case 2:
        return post('gzip of not JSON', gzipSync(Buffer.from(bytes)), headers);
      case 3:
        return post(
          'gzip with a broken tail',
          Buffer.concat([inner.subarray(0, inner.length - 8), Buffer.from(bytes).subarray(0, 8)]),
          headers,
        );
      case 4:
        return post('deflate', Buffer.from(bytes), { ...JSON_TYPE, 'content-encoding': 'deflate' });
      default:
        return post('gzip twice declared', gzipSync(inner), { ...JSON_TYPE, 'content-encoding': 'gzip, gzip' });
    }
  });

/** A few KiB of gzip that inflate past the 1 MiB body limit, JSON a valid task otherwise. */
const gzipBomb: fc.Arbitrary<HostileRequest> = fc
  .tuple(fc.integer({ min: 1024 * 1024 + 1, max: 8 * 1024 * 1024 }), fc.constantFrom(' ', 'n', '0'))
  .map(([size, fill]) => {
    const prefix = '{"title":"bomb","notes":"';
    const text = fill === ' ' ? `{"title":"bomb"${' '.repeat(size)}}` : `${prefix}${fill.repeat(size)}"}`;
    return post('gzip bomb', gzipSync(Buffer.from(text)), { ...JSON_TYPE, 'content-encoding': 'gzip' });
  });

/** Methods other than GET and POST, other paths, versions and resources, bad encodings in paths. */
const addresses: fc.Arbitrary<HostileRequest> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom<Method>('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      fc.constantFrom('/v1/tasks', '/v1/tasks/x', '/v1/settings', '/healthz'),
    )
    .map(([method, url]): HostileRequest => ({ family: `${method} method`, method, url, headers: {}, mustFail: true })),
  fc
    .constantFrom(
      '/v2/tasks',
      '/v1/task',
      '/v1/Tasks',
      '/v1',
      '/v1/',
      '/',
      '//v1/tasks',
      '/v1//tasks',
      '/v1/tasks/%',
      '/v1/tasks/%zz',
      '/v1/tasks/%E0%A4%A',
      '/v1/tasks/%00',
      '/v1/tasks/..%2F..%2Fetc%2Fpasswd',
      '/v1/tasks/x/y',
      '/v1/settings/x',
      '/v1/%F0%9F%98%80',
      '/.env',
      '/v1/tasks/' + 'x'.repeat(10_000),
    )
    .map((url): HostileRequest => ({ family: 'address', method: 'GET', url, headers: {}, mustFail: true })),
  fc.string({ maxLength: 30 }).map((segment): HostileRequest => ({
    family: 'random id',
    method: 'GET',
    url: `/v1/tasks/${encodeURIComponent(`nope-${segment}`)}`,
    headers: {},
    mustFail: true,
  })),
);

/** Valid task bodies under any content type but JSON in UTF-8. */
const contentTypes: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    validTask,
    fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/jsonx',
      'json',
      '',
      'application/json, text/plain',
    ),
  )
  .map(([task, type]) => post('content type', JSON.stringify(task), { 'content-type': type }));

/** Every family a victim's write token must be refused for, nothing stored changing. */
export function mustFail(victimIds: readonly string[]): Record<string, fc.Arbitrary<HostileRequest>> {
  return {
    brokenJson,
    deepJson,
    wrongTypes: wrongTypes(victimIds),
    hugeStrings,
    invalidUtf8,
    protoKeys,
    absurdDates,
    brokenGzip,
    gzipBomb,
    addresses,
    contentTypes,
  };
}

const errorBody = z.strictObject({ retcode: z.enum(RETCODES), retmsg: z.string(), reqdata: z.string() });

/** The contract's error answer: its status is the retcode's, and the body has exactly the three fields. */
export function checkErrorAnswer(status: number, text: string): Retcode | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  const parsed = errorBody.safeParse(json);
  if (!parsed.success) return `not the error body: ${text.slice(0, 200)}`;
  if (statusOf(parsed.data.retcode) !== status) return `${parsed.data.retcode} with status ${status}`;
  if (status < 400 || status > 499) return `status ${status}: ${text.slice(0, 200)}`;
  return parsed.data.retcode;
}
