/** What an error's `reqdata` shows in place of a secret's value (API.md section 6). */
const HIDDEN = '***';

/**
 * The names whose values never travel back in an error body, which clients and proxies log: the
 * sign-in password and every secret of OAuth (issue 21), on any path, in a query or a body.
 */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  'password',
  'client_secret',
  'code',
  'code_verifier',
  'refresh_token',
  'access_token',
  'token',
]);

/** The parameter name as URLSearchParams reads it (`access%5Ftoken` is `access_token` too), or the raw name. */
function decodedName(rawName: string): string {
  try {
    return decodeURIComponent(rawName.replace(/\+/g, ' '));
  } catch {
    return rawName;
  }
}

/** `name=value&…` (a query, a form body) with each secret's value replaced, everything else as received. */
function maskPairs(text: string): string {
  return text
    .split('&')
    .map((part) => {
      const mark = part.indexOf('=');
      const name = mark === -1 ? part : part.slice(0, mark);
      return SECRET_NAMES.has(decodedName(name)) ? `${name}=${HIDDEN}` : part;
    })
    .join('&');
}

/** A JSON member `"name": value` (a string with its escapes, or a bare number, literal…). */
const JSON_MEMBER = /"([a-z_]+)"(\s*:\s*)("(?:[^"\\]|\\.)*"|[^\s,}\]]+)/g;

/** JSON text with each secret member's value replaced by `"***"`, everything else as received. */
function maskJson(text: string): string {
  return text.replace(JSON_MEMBER, (member, name: string, colon: string) =>
    SECRET_NAMES.has(name) ? `"${name}"${colon}"${HIDDEN}"` : member,
  );
}

/** The raw query string of a request with every secret's value replaced by `***`. */
export function queryWithoutSecrets(query: string): string {
  return maskPairs(query);
}

/**
 * A request body, as an error echoes it, with every secret's value replaced by `***`: read as
 * JSON when it looks like JSON, as a form (`name=value&…`) otherwise.
 */
export function bodyWithoutSecrets(body: string): string {
  return /^\s*[[{]/.test(body) ? maskJson(body) : maskPairs(body);
}
