import type { PropertyRequest } from './requests.js';
import { dav, element, Markup, NS, type QName, type XmlChild } from './xml/writer.js';

/** A resource's properties: each a function giving its value, so only those asked for are made. */
export type PropertyTable = ReadonlyMap<string, () => readonly XmlChild[]>;

export function keyOf(name: QName): string {
  return `${name.ns}\n${name.name}`;
}

export function nameOfKey(key: string): QName {
  const at = key.indexOf('\n');
  return { ns: key.slice(0, at), name: key.slice(at + 1) };
}

/** Properties `allprop` leaves out because they are costly or only asked for by name (RFC 4791). */
const NOT_IN_ALLPROP: ReadonlySet<string> = new Set([
  keyOf({ ns: NS.caldav, name: 'calendar-data' }),
  keyOf({ ns: NS.dav, name: 'current-user-privilege-set' }),
  keyOf({ ns: NS.dav, name: 'supported-report-set' }),
]);

function propstat(status: string, properties: readonly Markup[]): Markup {
  return dav('propstat', dav('prop', ...properties), dav('status', `HTTP/1.1 ${status}`));
}

/** One `response` of a multistatus: the properties found (200) and those not (404). */
export function propertiesResponse(href: string, table: PropertyTable, request: PropertyRequest): Markup {
  const found: Markup[] = [];
  const missing: Markup[] = [];
  if (request.kind === 'propname') {
    for (const key of table.keys()) found.push(element(nameOfKey(key)));
  } else if (request.kind === 'allprop') {
    for (const [key, value] of table) if (!NOT_IN_ALLPROP.has(key)) found.push(element(nameOfKey(key), ...value()));
  } else {
    for (const name of request.names) {
      const value = table.get(keyOf(name));
      if (value === undefined) missing.push(element(name));
      else found.push(element(name, ...value()));
    }
  }
  const stats = [
    ...(found.length > 0 || missing.length === 0 ? [propstat('200 OK', found)] : []),
    ...(missing.length > 0 ? [propstat('404 Not Found', missing)] : []),
  ];
  return dav('response', dav('href', href), ...stats);
}

/** A `response` that only has a status: a multiget href not found, a sync deletion. */
export function statusResponse(href: string, status: string): Markup {
  return dav('response', dav('href', href), dav('status', `HTTP/1.1 ${status}`));
}

export const MULTISTATUS: QName = { ns: NS.dav, name: 'multistatus' };
