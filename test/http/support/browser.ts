import type { FastifyInstance } from 'fastify';
import { call, type Answer } from '../../support/harness.js';

const FORM = 'application/x-www-form-urlencoded';

function setCookiesOf(answer: Answer): string[] {
  const header = answer.headers['set-cookie'];
  if (header === undefined) return [];
  return Array.isArray(header) ? header : [String(header)];
}

/**
 * A browser in-process: it keeps the cookies the app sets (session, CSRF secret) and sends them
 * back, through the shared `call`, so every answer is checked against the OpenAPI document too.
 */
export class InProcessBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly app: FastifyInstance) {}

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private keep(answer: Answer): Answer {
    for (const line of setCookiesOf(answer)) {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals).trim();
      const value = pair.slice(equals + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return answer;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.keep(await call(this.app, { url, headers: { ...this.cookieHeader(), ...headers } }));
  }

  async post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return this.keep(
      await call(this.app, {
        method: 'POST',
        url,
        body: new URLSearchParams(fields).toString(),
        headers: { 'content-type': FORM, ...this.cookieHeader(), ...headers },
      }),
    );
  }

  /** A POST whose body is a file as it is (an import), not a form. */
  async postFile(url: string, file: Buffer | string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.keep(
      await call(this.app, {
        method: 'POST',
        url,
        body: file,
        headers: { 'content-type': 'application/octet-stream', ...this.cookieHeader(), ...headers },
      }),
    );
  }

  /** Makes the account with `--signup`'s form, signed in as it afterwards. */
  async signUp(username: string, password: string): Promise<void> {
    const page = await this.get('/signup');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    if (csrf === undefined) throw new Error(`no CSRF token in the sign-up page: ${page.text.slice(0, 200)}`);
    const signedUp = await this.post('/signup', { username, password, _csrf: csrf });
    if (signedUp.status !== 303) throw new Error(`sign-up answered ${signedUp.status}: ${signedUp.text.slice(0, 200)}`);
  }
}
