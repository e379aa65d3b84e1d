import { describe, expect, it } from 'vitest';
import { DomainError, invalid } from '../../src/domain/errors.js';
import { fromProblem, renderErrorBody, RETCODES, statusOf, WireError } from '../../src/http/wire/errors.js';

describe('the retcode catalogue', () => {
  it('lists each code of the contract once', () => {
    expect([...RETCODES]).toEqual([
      'E001',
      'E002',
      'E003',
      'E004',
      'E005',
      'E006',
      'E007',
      'E008',
      'E009',
      'E401',
      'E403',
      'E500',
      'E502',
      'E503',
    ]);
    expect(new Set(RETCODES).size).toBe(RETCODES.length);
  });

  it('gives each code its status', () => {
    for (const code of ['E001', 'E002', 'E003', 'E004', 'E005', 'E006', 'E007', 'E008', 'E009'] as const) {
      expect(statusOf(code)).toBe(400);
    }
    expect(statusOf('E401')).toBe(401);
    expect(statusOf('E403')).toBe(403);
    expect(statusOf('E500')).toBe(500);
    expect(statusOf('E502')).toBe(502);
    expect(statusOf('E503')).toBe(503);
  });
});

describe('WireError', () => {
  it('carries the contract’s exact messages', () => {
    const cases: readonly [WireError, string, string][] = [
      [WireError.unparsableJson(), 'E001', 'can not parse the request json'],
      [WireError.noSuchAddress(), 'E002', 'the address does not exist'],
      [WireError.unsupportedParameter('sort'), 'E003', 'parameter is not supported: sort'],
      [WireError.unsupportedParameter('cursor'), 'E003', 'parameter is not supported: cursor'],
      [WireError.invalidParameter('limit'), 'E004', 'invalid parameter: limit'],
      [WireError.invalidParameter('limit', '1-10000'), 'E004', 'invalid parameter: limit (1-10000)'],
      [WireError.contentType(), 'E005', 'content type must be application/json'],
      [WireError.bodyTooLarge(), 'E006', 'request body too large'],
      [WireError.notFound('task', 'abc'), 'E007', 'not found: task abc'],
      [WireError.cursorExpired(), 'E008', 'cursor expired'],
      [WireError.conflict('project', 'p1'), 'E009', 'conflict: project p1 changed'],
      [WireError.unauthorized(), 'E401', 'unauthorized'],
      [WireError.forbidden(), 'E403', 'forbidden'],
      [WireError.internal(), 'E500', 'internal error'],
      [WireError.maintenance(), 'E502', 'the service is being upgraded'],
      [WireError.unavailable(), 'E503', 'server resources are unavailable'],
    ];
    for (const [error, retcode, retmsg] of cases) {
      expect(error).toBeInstanceOf(Error);
      expect(error.retcode).toBe(retcode);
      expect(error.retmsg).toBe(retmsg);
      expect(error.status).toBe(statusOf(error.retcode));
    }
    expect(new Set(cases.map(([error]) => error.retcode))).toEqual(new Set(RETCODES));
  });

  it('names the entry of an array request for invalid parameters only', () => {
    expect(WireError.invalidParameter('title', 'required').atIndex(3).retmsg).toBe(
      'invalid parameter: [3].title (required)',
    );
    expect(WireError.invalidParameter('title').atIndex(0).retmsg).toBe('invalid parameter: [0].title');
    const notFound = WireError.notFound('task', 'x');
    expect(notFound.atIndex(2)).toBe(notFound);
  });
});

describe('fromProblem', () => {
  it('maps each kind of problem to its code', () => {
    expect(fromProblem(invalid('end_at', 'before start_at').problem).retmsg).toBe(
      'invalid parameter: end_at (before start_at)',
    );
    expect(fromProblem({ kind: 'invalid', field: 'title' }).retmsg).toBe('invalid parameter: title');
    const notFound = fromProblem({ kind: 'not_found', record: 'context', id: 'c9' });
    expect([notFound.retcode, notFound.retmsg]).toEqual(['E007', 'not found: context c9']);
    const expired = fromProblem({ kind: 'cursor_expired' });
    expect([expired.retcode, expired.retmsg]).toEqual(['E008', 'cursor expired']);
    const conflict = fromProblem(new DomainError({ kind: 'conflict', record: 'task', id: 't1' }).problem);
    expect([conflict.retcode, conflict.retmsg]).toEqual(['E009', 'conflict: task t1 changed']);
  });
});

describe('renderErrorBody', () => {
  it('writes the three fields in order', () => {
    expect(renderErrorBody('E002', 'the address does not exist', '')).toBe(
      '{"retcode":"E002","retmsg":"the address does not exist","reqdata":""}',
    );
  });

  it('escapes retmsg and reqdata and keeps non-ASCII text as it is', () => {
    const error = WireError.notFound('task', `<b>'x'</b>`);
    const reqdata = '{"title":"Tom & Jerry <3", "notes":"任务 🎉"}';
    const body = renderErrorBody(error.retcode, error.retmsg, reqdata);
    expect(JSON.parse(body)).toEqual({
      retcode: 'E007',
      retmsg: 'not found: task &lt;b&gt;&#39;x&#39;&lt;/b&gt;',
      reqdata: '{&quot;title&quot;:&quot;Tom &amp; Jerry &lt;3&quot;, &quot;notes&quot;:&quot;任务 🎉&quot;}',
    });
    expect(body).toContain('任务 🎉');
  });

  it('shows the raw query of a GET', () => {
    const body = renderErrorBody('E003', 'parameter is not supported: sort', 'sort=asc&limit=5');
    expect(JSON.parse(body)).toEqual({
      retcode: 'E003',
      retmsg: 'parameter is not supported: sort',
      reqdata: 'sort=asc&amp;limit=5',
    });
  });

  it('cuts reqdata at 64 KiB before escaping', () => {
    const reqdataOf = (raw: string): string => {
      const parsed: unknown = JSON.parse(renderErrorBody('E006', 'request body too large', raw));
      if (
        typeof parsed !== 'object' ||
        parsed === null ||
        !('reqdata' in parsed) ||
        typeof parsed.reqdata !== 'string'
      ) {
        throw new Error('no reqdata');
      }
      return parsed.reqdata;
    };
    expect(reqdataOf('a'.repeat(65_536))).toBe('a'.repeat(65_536));
    expect(reqdataOf('a'.repeat(70_000))).toBe('a'.repeat(65_536));
    expect(reqdataOf('<'.repeat(70_000))).toBe('&lt;'.repeat(65_536));
  });

  it('does not split a surrogate pair at the cut', () => {
    const reqdata = `${'a'.repeat(65_535)}😀b`;
    const body = renderErrorBody('E006', 'request body too large', reqdata);
    expect(body).toBe(`{"retcode":"E006","retmsg":"request body too large","reqdata":"${'a'.repeat(65_535)}"}`);
    const whole = `${'a'.repeat(65_534)}😀b`;
    expect(renderErrorBody('E006', 'request body too large', whole)).toContain(`${'a'.repeat(65_534)}😀"}`);
  });
});
