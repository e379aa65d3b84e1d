/** What an error's `reqdata` shows in place of an `access_token` value (API.md section 6). */
const HIDDEN_TOKEN = '***';

/** The parameter name as URLSearchParams reads it (`access%5Ftoken` is `access_token` too), or the raw name. */
function decodedName(rawName: string): string {
  try {
    return decodeURIComponent(rawName.replace(/\+/g, ' '));
  } catch {
    return rawName;
  }
}

/**
 * The raw query string with the value of every `access_token` parameter replaced by `***`, so a
 * token never travels back in an error body that clients and proxies log. Everything else stays
 * exactly as received.
 */
export function queryWithoutToken(query: string): string {
  if (!/access|%/i.test(query)) return query;
  return query
    .split('&')
    .map((part) => {
      const mark = part.indexOf('=');
      const name = mark === -1 ? part : part.slice(0, mark);
      return decodedName(name) === 'access_token' ? `${name}=${HIDDEN_TOKEN}` : part;
    })
    .join('&');
}
