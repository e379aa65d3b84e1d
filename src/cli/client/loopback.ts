/**
 * `task-service login <url>` through the browser: OAuth code + PKCE on a loopback redirect
 * (RFC 8252 section 7.3). The client listens on 127.0.0.1 on a port the system picks, prints the
 * address to open, and waits for the browser to come back to `http://127.0.0.1:<port>/callback`;
 * the service matches a loopback redirect URI on any port, so one registration serves every run.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  authorizationUrl,
  codeFromRedirect,
  exchangeCode,
  makePkce,
  makeState,
  OAuthRefusal,
  type OAuthTokens,
} from '../../client/index.js';

/** How long the client waits for the browser: signing in and deciding take a person a while. */
const BROWSER_WAIT_MS = 10 * 60 * 1000;

const CALLBACK_PATH = '/callback';

export interface BrowserLogin {
  readonly url: string;
  readonly clientId: string;
  readonly scope: 'read' | 'write';
  /** Says a line to the person at the terminal. */
  readonly tell: (line: string) => void;
}

/** A plain-text page for the browser tab: it says what happened and that the terminal goes on. */
function answerBrowser(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  response.end(`${text}\n`);
}

/** The first answer at the callback path: the code, or the refusal it carries. */
function waitForCallback(
  listening: ReturnType<typeof createServer>,
  state: string,
): Promise<{ code: string } | { refusal: OAuthRefusal }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new OAuthRefusal('timeout', 'no answer from the browser within 10 minutes; run login again')),
      BROWSER_WAIT_MS,
    );
    listening.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const answer = new URL(request.url ?? '/', 'http://127.0.0.1');
      // A favicon or anything else the browser asks for: not the answer.
      if (request.method !== 'GET' || answer.pathname !== CALLBACK_PATH) {
        answerBrowser(response, 404, 'Not found.');
        return;
      }
      clearTimeout(timer);
      try {
        const code = codeFromRedirect(answer, state);
        answerBrowser(response, 200, 'Task Service: signed in. You can close this page and go back to the terminal.');
        resolve({ code });
      } catch (error) {
        if (!(error instanceof OAuthRefusal)) {
          reject(error);
          return;
        }
        answerBrowser(response, 400, `Task Service: not signed in (${error.message}).`);
        resolve({ refusal: error });
      }
    });
  });
}

/** Signs in through the browser and returns the tokens the code was traded for. */
export async function loginThroughBrowser(login: BrowserLogin): Promise<OAuthTokens> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the loopback listener has no port');
    const { port } = address;
    const redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
    const pkce = await makePkce();
    const state = makeState();
    const answered = waitForCallback(server, state);
    login.tell('Open this address in a browser to sign in and allow the terminal client:');
    login.tell(
      `  ${authorizationUrl(login.url, { clientId: login.clientId, redirectUri, state, challenge: pkce.challenge, scope: login.scope })}`,
    );
    login.tell(`Waiting for the browser to come back to ${redirectUri} (Ctrl-C gives up)…`);
    const outcome = await answered;
    if ('refusal' in outcome) throw outcome.refusal;
    return await exchangeCode(login.url, {
      clientId: login.clientId,
      code: outcome.code,
      redirectUri,
      verifier: pkce.verifier,
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
