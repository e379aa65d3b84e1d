import { expect } from 'vitest';
import { request, type HttpResponse } from './http.js';

/** Undoes the five escapes of `http/wire/escape.ts`, for values read back from a page. */
function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The hidden fields of the page's form that posts to `action` (the pages are plain HTML forms). */
export function hiddenFields(page: string, action: string): Record<string, string> {
  const start = page.indexOf(`<form method="post" action="${action}">`);
  if (start === -1) throw new Error(`no form posting to ${action} in:\n${page}`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  // HTML's void element, written `<input …>` or `<input … />` (as prettier writes the pages' templates).
  for (const match of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\s*\/?>/g)) {
    fields[unescapeHtml(match[1] ?? '')] = unescapeHtml(match[2] ?? '');
  }
  return fields;
}

function formBody(fields: Readonly<Record<string, string>>): string {
  return new URLSearchParams(fields).toString();
}

/**
 * A browser without JavaScript, as far as these pages need one: it keeps cookies, sends `Origin`
 * on a form POST like a browser does, and follows nothing by itself (tests look at each answer).
 */
export class WebSession {
  readonly cookies = new Map<string, string>();

  /** `ca`: for HTTPS, the certificate to trust. */
  constructor(
    readonly origin: string,
    private readonly ca?: string,
  ) {}

  cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  #keep(response: HttpResponse): HttpResponse {
    const set = response.headers['set-cookie'] ?? [];
    for (const line of set) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  async get(path: string, headers: Readonly<Record<string, string>> = {}): Promise<HttpResponse> {
    return this.#keep(
      await request(this.origin, {
        path,
        headers: { ...this.cookieHeader(), ...headers },
        ...(this.ca === undefined ? {} : { ca: this.ca }),
      }),
    );
  }

  async post(
    path: string,
    fields: Readonly<Record<string, string>>,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<HttpResponse> {
    return this.#keep(
      await request(this.origin, {
        method: 'POST',
        path,
        body: formBody(fields),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: this.origin,
          ...this.cookieHeader(),
          ...headers,
        },
        ...(this.ca === undefined ? {} : { ca: this.ca }),
      }),
    );
  }

  /** Opens the sign-in page at `path` (e.g. where an authorize request sent us) and signs in. */
  async signInAt(path: string, username: string, password: string): Promise<HttpResponse> {
    const page = await this.get(path);
    expect(page.status, page.text).toBe(200);
    return this.post('/login', { ...hiddenFields(page.text, '/login'), username, password });
  }

  async signIn(username: string, password: string): Promise<void> {
    const answer = await this.signInAt('/login', username, password);
    expect(answer.status, answer.text).toBe(303);
  }
}

/** Where a redirect answer points, relative to the server or absolute. */
export function locationOf(response: HttpResponse): string {
  const location = response.headers.location;
  if (typeof location !== 'string') throw new Error(`no Location in a ${response.status} answer:\n${response.text}`);
  return location;
}

/** The path and query of a Location on this server. */
export function localTarget(response: HttpResponse, origin: string): string {
  const url = new URL(locationOf(response), origin);
  expect(url.origin).toBe(origin);
  return `${url.pathname}${url.search}`;
}
