/**
 * What the CalDAV tests share: requests to the app in-process, read as XML with the service's own
 * reader (so a test fails on an answer that is not well-formed), and VTODO bodies.
 */
import type { FastifyInstance } from 'fastify';
import ICAL from 'ical.js';
import { expect } from 'vitest';
import { childNamed, childrenNamed, readXml, type XmlElement } from '../../src/dav/xml/reader.js';

export const DAV = 'DAV:';
export const CALDAV = 'urn:ietf:params:xml:ns:caldav';

export interface DavAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly text: string;
}

export interface DavRequest {
  readonly method: string;
  readonly url: string;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  /** `Authorization` as is; default: Basic with the user's app password. */
  readonly authorization?: string | null;
}

export interface DavUser {
  readonly username: string;
  readonly token: string;
  readonly readToken: string;
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export async function dav(app: FastifyInstance, user: DavUser | undefined, request: DavRequest): Promise<DavAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  const authorization =
    request.authorization === undefined
      ? user === undefined
        ? undefined
        : basic(user.username, user.token)
      : request.authorization;
  if (authorization !== undefined && authorization !== null) headers.authorization = authorization;
  if (request.body !== undefined && headers['content-type'] === undefined)
    headers['content-type'] =
      typeof request.body === 'string' && request.body.startsWith('BEGIN:')
        ? 'text/calendar; charset=utf-8'
        : 'application/xml; charset=utf-8';
  const response = await app.inject({
    // light-my-request types methods narrowly; node accepts every WebDAV method.
    method: request.method as 'GET',
    url: request.url,
    headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
  return { status: response.statusCode, headers: response.headers, text: response.body };
}

/** A multistatus answer, each response by its href: status, and property elements by status. */
export interface Multistatus {
  readonly responses: Map<string, { status?: string; props: Map<string, XmlElement>; missing: Set<string> }>;
  readonly syncToken?: string;
}

export function multistatus(answer: DavAnswer): Multistatus {
  expect(answer.status, answer.text).toBe(207);
  // An answer of the service may be large: read with room for 1,000,000 elements.
  const root = readXml(answer.text, { maxDepth: 32, maxElements: 1_000_000 });
  expect(root.name).toBe('multistatus');
  const responses: Multistatus['responses'] = new Map();
  for (const response of childrenNamed(root, DAV, 'response')) {
    const href = decodeURIComponent(childNamed(response, DAV, 'href')?.text ?? '');
    const props = new Map<string, XmlElement>();
    const missing = new Set<string>();
    for (const stat of childrenNamed(response, DAV, 'propstat')) {
      const status = childNamed(stat, DAV, 'status')?.text ?? '';
      for (const prop of childNamed(stat, DAV, 'prop')?.children ?? []) {
        if (status.includes('200')) props.set(prop.name, prop);
        else missing.add(prop.name);
      }
    }
    const status = childNamed(response, DAV, 'status')?.text;
    responses.set(href, { ...(status === undefined ? {} : { status }), props, missing });
  }
  const token = childNamed(root, DAV, 'sync-token')?.text;
  return { responses, ...(token === undefined ? {} : { syncToken: token }) };
}

/** A DAV:error body's precondition element name. */
export function precondition(answer: DavAnswer): string | undefined {
  const root = readXml(answer.text);
  expect(root.name).toBe('error');
  return root.children.find((child) => child.name !== 'message')?.name;
}

export function propfindBody(...props: string[]): string {
  const names = props
    .map((prop) => {
      const [prefix, name] = prop.split(':');
      return `<${prefix}:${name}/>`;
    })
    .join('');
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    `<d:propfind xmlns:d="DAV:" xmlns:c="${CALDAV}" xmlns:cs="http://calendarserver.org/ns/" ` +
    `xmlns:a="http://apple.com/ns/ical/" xmlns:x="urn:example:unknown"><d:prop>${names}</d:prop></d:propfind>`
  );
}

/** A VCALENDAR with one VTODO of these lines, CRLF ended. */
export function vcalendar(...todoLines: string[]): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//test//EN',
    'BEGIN:VTODO',
    ...todoLines,
    'END:VTODO',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** The VTODO of an iCalendar text, read by ical.js. */
export function vtodoOf(text: string): ICAL.Component {
  const todo = new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent('vtodo');
  if (todo === null) throw new Error(`no VTODO in ${text}`);
  return todo;
}

/** The unfolded content lines of an iCalendar text. */
export function unfoldedLines(text: string): string[] {
  return text.replace(/\r\n[ \t]/g, '').split('\r\n');
}
