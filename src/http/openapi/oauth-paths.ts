/**
 * The OpenAPI paths of sign-in and the OAuth 2 authorization server (docs/auth.md): the pages a
 * person uses (HTML), the token, revocation and metadata endpoints a client calls (JSON bodies
 * generated from wire/oauth-shapes.ts), and the result page of the original installed clients.
 */
import type { AuthorizeParams } from '../../domain/oauth.js';
import { componentRef, type JsonSchema } from './components.js';
import { errorResponses } from './errors.js';

const HTML = { 'text/html': { schema: { type: 'string' } } };
const FORM_CONTENT = 'application/x-www-form-urlencoded';

function page(description: string): JsonSchema {
  return { description, content: HTML };
}

function redirect(description: string): JsonSchema {
  return {
    description,
    headers: { Location: { description: 'Where to go next.', schema: { type: 'string' } } },
  };
}

/** What any page or form can meet besides its own answers: a failure of ours, and the load shedder. */
const PAGE_FAILURES: Record<string, JsonSchema> = {
  ...errorResponses(['E503']),
  '500': page('The server could not answer.'),
};

/** What any form POST can meet: a refused form (CSRF token or Origin), one too large. */
const FORM_FAILURES: Record<string, JsonSchema> = {
  ...PAGE_FAILURES,
  '403': page('The form expired or came from another site.'),
  '413': page('The form was too large.'),
};

function form(schema: JsonSchema): JsonSchema {
  return { required: true, content: { [FORM_CONTENT]: { schema } } };
}

const SIGN_IN_FORM: JsonSchema = {
  type: 'object',
  properties: {
    username: { type: 'string' },
    password: { type: 'string' },
    next: { type: 'string', description: 'A local path to go to once signed in.' },
    _csrf: { type: 'string', description: "The form's CSRF token." },
  },
  required: ['_csrf'],
};

const NEXT_PARAMETER: JsonSchema = {
  name: 'next',
  in: 'query',
  description: 'A local path to go to once signed in (anything else goes to `/login`).',
  schema: { type: 'string' },
};

/** Each parameter of an authorization request; the compiler keeps the list whole. */
const AUTHORIZE_PARAMETERS: { readonly [Name in keyof Required<AuthorizeParams>]: string } = {
  response_type: '`code`, or `token` (implicit) for a client registered with --legacy-implicit.',
  client_id: 'The registered client.',
  redirect_uri:
    'Exactly one registered for the client; a loopback `http://127.0.0.1:<port>/…` or `http://[::1]:<port>/…` matches on any port (RFC 8252).',
  state: 'Sent back unchanged with the answer.',
  scope: '`read` or `write`; empty or missing means `write`.',
  code_challenge: 'PKCE (RFC 7636): required of a public client.',
  code_challenge_method: '`S256`, the only method.',
};

const AUTHORIZE_QUERY: JsonSchema[] = Object.entries(AUTHORIZE_PARAMETERS).map(([name, description]) => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string' },
}));

const AUTHORIZE_ANSWERS: Record<string, JsonSchema> = {
  '200': page('The consent page, naming the client and what it may do, with Allow and Deny.'),
  '400': page('An unknown client, or a redirect_uri not registered for it: never redirected to.'),
};

const OAUTH_ERROR = { 'application/json': { schema: componentRef('OAuthError') } };

/** What the token and revocation endpoints can meet besides their own answers. */
const CLIENT_FAILURES: Record<string, JsonSchema> = {
  '401': {
    description: 'The client could not be authenticated (`invalid_client`).',
    headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
    content: OAUTH_ERROR,
  },
  '429': {
    description: 'Too many tries from this address (`temporarily_unavailable`).',
    headers: { 'Retry-After': { schema: { type: 'integer', minimum: 0 } } },
    content: OAUTH_ERROR,
  },
  ...errorResponses(['E503']),
  '500': { description: 'The server could not answer (`server_error`).', content: OAUTH_ERROR },
};

const TOKEN_ANSWERS: Record<string, JsonSchema> = {
  '200': {
    description: 'A new access token, with `Cache-Control: no-store`.',
    content: { 'application/json': { schema: componentRef('OAuthToken') } },
  },
  '400': { description: 'A bad request, code, verifier or refresh token.', content: OAUTH_ERROR },
  ...CLIENT_FAILURES,
};

const CLIENT_AUTH = [{}, { clientBasic: [] }];

function tokenOperation(operationId: string, summary: string): JsonSchema {
  return {
    operationId,
    tags: ['oauth'],
    summary,
    security: CLIENT_AUTH,
    requestBody: form(componentRef('OAuthTokenForm')),
    responses: TOKEN_ANSWERS,
  };
}

export const OAUTH_PATHS: Record<string, JsonSchema> = {
  '/login': {
    get: {
      operationId: 'sign_in_page',
      tags: ['sign-in'],
      summary: 'The sign-in form (or, when signed in, who is and a Sign out button)',
      parameters: [NEXT_PARAMETER],
      responses: { '200': page('The page.'), ...PAGE_FAILURES },
    },
    post: {
      operationId: 'sign_in',
      tags: ['sign-in'],
      summary: 'Sign in: sets the session cookie and goes to `next`',
      requestBody: form(SIGN_IN_FORM),
      responses: {
        '303': redirect('Signed in: to `next`.'),
        '401': page('The form again, saying "wrong username or password" (the same for every refusal).'),
        ...FORM_FAILURES,
      },
    },
  },
  '/logout': {
    post: {
      operationId: 'sign_out',
      tags: ['sign-in'],
      summary: 'Sign out: ends the session',
      requestBody: form({ type: 'object', properties: { _csrf: { type: 'string' } }, required: ['_csrf'] }),
      responses: { '303': redirect('To `/login`.'), ...FORM_FAILURES },
    },
  },
  '/signup': {
    get: {
      operationId: 'sign_up_page',
      tags: ['sign-in'],
      summary: 'The form to create an account (only with `serve --signup`; otherwise unknown, `E002`)',
      parameters: [NEXT_PARAMETER],
      responses: { '200': page('The page.'), ...PAGE_FAILURES },
    },
    post: {
      operationId: 'sign_up',
      tags: ['sign-in'],
      summary: 'Create an account and sign in (only with `serve --signup`)',
      requestBody: form(SIGN_IN_FORM),
      responses: {
        '303': redirect('Signed in to the new account: to `next`.'),
        '400': page('The form again, saying what is wrong (a name taken, a password too short).'),
        ...FORM_FAILURES,
      },
    },
  },
  '/oauth/authorize': {
    get: {
      operationId: 'authorize',
      tags: ['oauth'],
      summary: 'Start an authorization (RFC 6749 4.1, 4.2; PKCE RFC 7636)',
      description:
        'Not signed in: to the sign-in page and back. Then the consent page, unless this client already holds as much. ' +
        'The answer goes to `redirect_uri`: `?code=…&state=…` (or `#access_token=…` for `token`), or `?error=…&state=…`.',
      parameters: AUTHORIZE_QUERY,
      responses: {
        ...AUTHORIZE_ANSWERS,
        '302': redirect('To the sign-in page, or back to `redirect_uri` with the answer.'),
        ...PAGE_FAILURES,
      },
    },
    post: {
      operationId: 'authorize_decision',
      tags: ['oauth'],
      summary: "The consent page's answer: Allow or Deny",
      requestBody: form({
        type: 'object',
        properties: {
          decision: { enum: ['allow', 'deny'] },
          _csrf: { type: 'string' },
          ...Object.fromEntries(Object.keys(AUTHORIZE_PARAMETERS).map((name) => [name, { type: 'string' }])),
        },
        required: ['_csrf'],
      }),
      responses: {
        ...AUTHORIZE_ANSWERS,
        '303': redirect('Back to `redirect_uri` with the code or token, or `error=access_denied`.'),
        ...FORM_FAILURES,
      },
    },
  },
  '/oauth/token': { post: tokenOperation('token', 'Exchange a code, or a refresh token, for an access token') },
  '/oauth/access_token': {
    post: tokenOperation('access_token', 'The same as `/oauth/token`, under the name the original clients use'),
  },
  '/oauth/revoke': {
    post: {
      operationId: 'revoke',
      tags: ['oauth'],
      summary: 'Revoke an access or refresh token (RFC 7009)',
      security: CLIENT_AUTH,
      requestBody: form(componentRef('OAuthRevokeForm')),
      responses: {
        '200': { description: 'Revoked; an unknown token, or another client’s, is answered alike. No body.' },
        '400': { description: 'A bad request.', content: OAUTH_ERROR },
        ...CLIENT_FAILURES,
      },
    },
  },
  '/.well-known/oauth-authorization-server': {
    get: {
      operationId: 'oauth_metadata',
      tags: ['oauth'],
      summary: 'Authorization server metadata (RFC 8414)',
      responses: {
        '200': {
          description: 'The endpoints and what they support.',
          content: { 'application/json': { schema: componentRef('OAuthMetadata') } },
        },
        ...errorResponses(['E503']),
      },
    },
  },
  '/oauth/auth_result.html': {
    get: {
      operationId: 'auth_result_page',
      tags: ['oauth'],
      summary: 'The page installed clients are sent back to: shows the token from the URL fragment',
      responses: {
        '200': page('The page; its script reads the fragment, which never reaches the server.'),
        ...errorResponses(['E503']),
      },
    },
  },
  '/oauth/auth_result.js': {
    get: {
      operationId: 'auth_result_script',
      tags: ['oauth'],
      summary: 'The script of the result page',
      responses: {
        '200': { description: 'The script.', content: { 'text/javascript': { schema: { type: 'string' } } } },
        ...errorResponses(['E503']),
      },
    },
  },
};
