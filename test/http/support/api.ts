/**
 * What the HTTP conformance suite shares: the shapes of every answer (checked strictly, so a
 * missing or extra field fails), a small client bound to one token, and the error assertion.
 */
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { z } from 'zod';
import { call, type Answer } from '../../support/harness.js';

export {
  contextList,
  DATE_TIME,
  entriesOf,
  projectList,
  taskList,
  wireContext,
  wireError,
  wireProject,
  wireSettings,
  wireTask,
  type TaskList,
  type WireContext,
  type WireProject,
  type WireSettings,
  type WireTask,
} from '../../support/wire-shapes.js';
import {
  entriesOf,
  taskList,
  wireContext,
  wireError,
  wireProject,
  wireSettings,
  wireTask,
  type TaskList,
  type WireContext,
  type WireProject,
  type WireSettings,
  type WireTask,
} from '../../support/wire-shapes.js';

const JSON_UTF8 = 'application/json; charset=utf-8';

/** Every answer, success or error, is JSON in UTF-8 and tells browsers not to sniff. */
export function expectJsonHeaders(answer: Answer): void {
  expect(answer.headers['content-type']).toBe(JSON_UTF8);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
}

/** A 200 answer read with `schema`; on any other status the failure shows the body. */
export function ok<T extends z.ZodType>(answer: Answer, schema: T): z.infer<T> {
  expect(answer.status, answer.text).toBe(200);
  expectJsonHeaders(answer);
  return schema.parse(answer.json);
}

export interface ExpectedError {
  readonly status: number;
  readonly retcode: string;
  /** The exact message, or a pattern where the message carries a free-form reason. */
  readonly retmsg: string | RegExp;
  /** The request data as sent (compared HTML-escaped, as the service writes it); omitted only where the test states why. */
  readonly reqdata?: string;
}

/** The common error body, exactly: status, retcode, retmsg, reqdata, and the JSON headers. */
export function expectError(answer: Answer, expected: ExpectedError): z.infer<typeof wireError> {
  expect(answer.status, answer.text).toBe(expected.status);
  expectJsonHeaders(answer);
  const body = wireError.parse(answer.json);
  expect(body.retcode, answer.text).toBe(expected.retcode);
  if (typeof expected.retmsg === 'string') expect(body.retmsg).toBe(expected.retmsg);
  else expect(body.retmsg).toMatch(expected.retmsg);
  if (expected.reqdata !== undefined) expect(body.reqdata).toBe(escapeHtml(expected.reqdata));
  return body;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `invalid parameter: <field>`, optionally followed by a short reason in parentheses. */
export function invalidParameter(field: string): RegExp {
  return new RegExp(`^invalid parameter: ${escapeRegExp(field)}( \\(.+\\))?$`);
}

/** `parameter is not supported: <name>`, exactly: nothing follows the name (API.md section 6). */
export function unsupportedParameter(name: string): RegExp {
  return new RegExp(`^parameter is not supported: ${escapeRegExp(name)}$`);
}

/** E004 naming `field`, with the echo of the request. */
export function expectInvalid(answer: Answer, field: string, reqdata?: string): void {
  expectError(answer, {
    status: 400,
    retcode: 'E004',
    retmsg: invalidParameter(field),
    ...(reqdata === undefined ? {} : { reqdata }),
  });
}

/** The service's output escaping, written out independently of its code: exactly five characters. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll("'", '&#39;')
    .replaceAll('"', '&quot;');
}

/** What a client does before display or before sending text back: undo the five entities. */
function unescapeHtml(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&#39;', "'")
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');
}

/** Every string in a JSON value unescaped, as a client holds the record after reading it. */
export function unescapeAll(value: unknown): unknown {
  if (typeof value === 'string') return unescapeHtml(value);
  if (Array.isArray(value)) return value.map(unescapeAll);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, unescapeAll(inner)]));
  }
  return value;
}

/** The five characters the service escapes, with text around them. */
export const SPECIALS = `Tom & Jerry <b>'quoted'</b> "double"`;
export const SPECIALS_ESCAPED = 'Tom &amp; Jerry &lt;b&gt;&#39;quoted&#39;&lt;/b&gt; &quot;double&quot;';

export function gzipJson(value: unknown): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(value), 'utf8'));
}

/** The current instant in microseconds, as the store keeps time. */
export function nowMicros(): number {
  return Date.now() * 1000;
}

/** One account's view of the API: requests carry its write token unless told otherwise. */
export class Client {
  constructor(
    readonly app: FastifyInstance,
    readonly token: string,
  ) {}

  get(url: string, headers?: Record<string, string>): Promise<Answer> {
    return call(this.app, { url, token: this.token, ...(headers === undefined ? {} : { headers }) });
  }

  post(url: string, body: unknown, headers?: Record<string, string>): Promise<Answer> {
    return call(this.app, { url, token: this.token, body, ...(headers === undefined ? {} : { headers }) });
  }

  async createTask(body: Record<string, unknown>): Promise<WireTask> {
    return ok(await this.post('/v1/tasks', body), wireTask);
  }

  async postTasks(bodies: readonly Record<string, unknown>[]): Promise<WireTask[]> {
    return ok(await this.post('/v1/tasks', bodies), entriesOf(wireTask)).entries;
  }

  async getTask(id: string): Promise<WireTask> {
    return ok(await this.get(`/v1/tasks/${encodeURIComponent(id)}`), wireTask);
  }

  async listTasks(query = ''): Promise<TaskList> {
    return ok(await this.get(`/v1/tasks${query === '' ? '' : `?${query}`}`), taskList);
  }

  async createProject(body: Record<string, unknown>): Promise<WireProject> {
    return ok(await this.post('/v1/projects', body), wireProject);
  }

  async createContext(body: Record<string, unknown>): Promise<WireContext> {
    return ok(await this.post('/v1/contexts', body), wireContext);
  }

  async settings(): Promise<WireSettings> {
    return ok(await this.get('/v1/settings'), wireSettings);
  }
}

/** `YYYY-MM-DD HH:MM:SS ±hhmm` of an instant at a fixed offset, written independently of the service. */
export function wireAtOffset(us: number, offsetMinutes: number): string {
  const shifted = new Date(Math.floor(us / 1000) + offsetMinutes * 60_000).toISOString();
  const magnitude = Math.abs(offsetMinutes);
  const offset =
    (offsetMinutes < 0 ? '-' : '+') +
    String(Math.floor(magnitude / 60)).padStart(2, '0') +
    String(magnitude % 60).padStart(2, '0');
  return `${shifted.slice(0, 10)} ${shifted.slice(11, 19)} ${offset}`;
}

/** RFC 3339 in UTC with all six digits of the microseconds: `2026-11-21T01:30:00.123456Z`. */
export function rfc3339Micros(us: number): string {
  const seconds = new Date(Math.floor(us / 1_000_000) * 1000).toISOString().slice(0, 19);
  return `${seconds}.${String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0')}Z`;
}
