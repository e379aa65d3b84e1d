import { PASSWORD_MIN_LENGTH } from '../../domain/account.js';
import { html, type SafeHtml } from '../wire/html.js';

/**
 * The pages of sign-in and consent: plain server-rendered forms that work without JavaScript,
 * with the accessible names of ACCOUNTS.md (labels tied to their fields, buttons by their text).
 */
export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <link rel="icon" href="/favicon.ico" />
        <title>${title} · Task Service</title>
        <style>
          body {
            font-family:
              system-ui,
              -apple-system,
              'Segoe UI',
              Roboto,
              sans-serif;
            font-size: 15px;
            color: #1f2328;
            background: #f4f6f8;
            margin: 0;
            padding: 4rem 1rem;
            line-height: 1.5;
          }
          main {
            max-width: 24rem;
            margin: 0 auto;
            background: #fff;
            border: 1px solid #d8dde3;
            border-radius: 10px;
            padding: 1.5rem 2rem 2rem;
          }
          .brand {
            margin: 0;
            color: #5b636d;
            font-size: 13px;
            font-weight: 600;
            letter-spacing: 0.05em;
            text-transform: uppercase;
          }
          h1 {
            font-size: 1.5rem;
            margin: 0.25rem 0 1rem;
          }
          label {
            display: block;
            margin-top: 1rem;
            font-size: 13px;
            color: #5b636d;
          }
          input {
            width: 100%;
            padding: 0.5rem 0.6rem;
            box-sizing: border-box;
            font: inherit;
            border: 1px solid #d8dde3;
            border-radius: 6px;
          }
          input:focus-visible,
          button:focus-visible {
            outline: 2px solid #1f6feb;
            outline-offset: 1px;
          }
          button {
            margin-top: 1.25rem;
            margin-right: 0.5rem;
            padding: 0.5rem 1.25rem;
            font: inherit;
            border: 1px solid #d8dde3;
            border-radius: 6px;
            background: #fff;
            cursor: pointer;
          }
          button:first-of-type {
            background: #1f6feb;
            border-color: #1f6feb;
            color: #fff;
          }
          a {
            color: #1f6feb;
          }
          [role='status'] {
            color: #1a5d2b;
            background: #e6f4ea;
            border: 1px solid #a8d5b5;
            border-radius: 6px;
            padding: 0.4rem 0.75rem;
          }
          [role='alert'] {
            color: #b42318;
            background: #fde8e7;
            border: 1px solid #f1b5b0;
            border-radius: 6px;
            padding: 0.4rem 0.75rem;
          }
        </style>
      </head>
      <body>
        <main>
          <p class="brand">Task Service</p>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html> `.text;
}

export interface LoginView {
  readonly csrf: string;
  readonly next: string;
  readonly message?: string | undefined;
  /** Something that went right to say above the form (`You are signed out.`). */
  readonly note?: string | undefined;
  readonly username?: string | undefined;
  readonly signupOpen: boolean;
}

export function loginPage(view: LoginView): string {
  return page(
    'Sign in',
    html`${view.note === undefined ? undefined : html`<p role="status">${view.note}</p>`}
      ${view.message === undefined ? undefined : html`<p role="alert">${view.message}</p>`}
      <form method="post" action="/login">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <input type="hidden" name="next" value="${view.next}" />
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          type="text"
          autocomplete="username"
          autocapitalize="none"
          required
          value="${view.username ?? ''}"
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      ${view.signupOpen ? html`<p>No account yet? <a href="/signup?next=${encodeURIComponent(view.next)}">Create an account</a></p>` : undefined}`,
  );
}

export function signupPage(view: {
  readonly csrf: string;
  readonly next: string;
  readonly message?: string | undefined;
}): string {
  return page(
    'Create an account',
    html`${view.message === undefined ? undefined : html`<p role="alert">${view.message}</p>`}
      <form method="post" action="/signup">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <input type="hidden" name="next" value="${view.next}" />
        <label for="username">Username</label>
        <input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required />
        <button type="submit">Create account</button>
      </form>
      <p><a href="/login?next=${encodeURIComponent(view.next)}">Sign in instead</a></p>`,
  );
}

export function signedInPage(view: {
  readonly csrf: string;
  readonly username: string;
  /** The web app's address, when it is served: a link to go on to it. */
  readonly home: string | null;
}): string {
  return page(
    'Signed in',
    html`<p>You are signed in as <strong>${view.username}</strong>.</p>
      ${view.home === null ? undefined : html`<p><a href="${view.home}">Go to your tasks</a></p>`}
      ${signOutForm(view.csrf)}`,
  );
}

export function signOutForm(csrf: string): SafeHtml {
  return html`<form method="post" action="/logout">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <button type="submit">Sign out</button>
  </form>`;
}

export interface ConsentView {
  readonly csrf: string;
  readonly clientName: string;
  readonly username: string;
  readonly scope: 'read' | 'write';
  /** The authorization request's parameters, carried to the POST unchanged. */
  readonly params: Readonly<Record<string, string | undefined>>;
}

export function consentPage(view: ConsentView): string {
  const fields = Object.entries(view.params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" /> `);
  const what =
    view.scope === 'write'
      ? 'see, add and change your tasks, projects and contexts'
      : 'see your tasks, projects and contexts';
  return page(
    'Allow access?',
    html`<p><strong>${view.clientName}</strong> asks to ${what}.</p>
      <p>Signed in as ${view.username}.</p>
      <form method="post" action="/oauth/authorize">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        ${fields}<button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, html`<p role="alert">${message}</p>`);
}

/**
 * The page installed clients are sent back to. The token is in the URL fragment, which browsers
 * never send to a server: the page's own script reads it and shows it.
 */
export function authResultPage(): string {
  return page(
    'Authorization',
    html`<div id="granted" hidden>
        <p>Copy this token into the application:</p>
        <label for="token">Access token</label>
        <input id="token" type="text" readonly />
      </div>
      <p id="refused" role="alert" hidden>the authorization was refused</p>
      <noscript><p>This page reads the token from its address (after the #): copy it from there.</p></noscript>
      <script src="/oauth/auth_result.js"></script>`,
  );
}

/** The result page's script: reads the fragment, shows the token or the refusal, sends nothing. */
export const AUTH_RESULT_SCRIPT = `(function () {
  var params = new URLSearchParams(window.location.hash.slice(1));
  var token = params.get('access_token');
  if (token) {
    var field = document.getElementById('token');
    field.value = token;
    document.getElementById('granted').hidden = false;
    field.focus();
    field.select();
  } else {
    document.getElementById('refused').hidden = false;
  }
})();
`;
