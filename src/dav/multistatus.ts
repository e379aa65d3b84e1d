import type { PropertyRequest } from './requests.js';
import { dav, element, elementOf, joined, Markup, NS, type QName, type XmlChild } from './xml/writer.js';

/**
 * A kind of resource's properties: each a function of the resource giving its value (undefined:
 * this resource has none), so only those asked for are made, and the table is made once for
 * every resource of the kind.
 */
export type PropertyTable<T> = ReadonlyMap<string, (item: T) => readonly XmlChild[] | undefined>;

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

/** What a request asks of a table: the properties the table has, in order, and those it lacks. */
function plan<T>(table: PropertyTable<T>, request: PropertyRequest) {
  const found: {
    readonly name: QName;
    readonly write: (children: readonly XmlChild[]) => Markup;
    readonly value: (item: T) => readonly XmlChild[] | undefined;
  }[] = [];
  const missing: Markup[] = [];
  const names: QName[] =
    request.kind === 'prop'
      ? [...request.names]
      : [...table.keys()].filter((key) => request.kind === 'propname' || !NOT_IN_ALLPROP.has(key)).map(nameOfKey);
  for (const name of names) {
    const value = table.get(keyOf(name));
    if (value === undefined) missing.push(element(name));
    else found.push({ name, write: elementOf(name), value: request.kind === 'propname' ? () => [] : value });
  }
  return { found, missing };
}

/**
 * Writes the `response` of each resource of one kind to one request: what the request asks is
 * worked out once, and each resource costs only its values. A property this resource has none of
 * is a 404 when asked for by name, and left out of `allprop`.
 */
export function responder<T>(table: PropertyTable<T>, request: PropertyRequest): (href: string, item: T) => Markup {
  const { found, missing } = plan(table, request);
  const byName = request.kind === 'prop';
  const okStatus = dav('status', 'HTTP/1.1 200 OK');
  const writeHref = elementOf({ ns: NS.dav, name: 'href' });
  const writeProp = elementOf({ ns: NS.dav, name: 'prop' });
  const writePropstat = elementOf({ ns: NS.dav, name: 'propstat' });
  const writeResponse = elementOf({ ns: NS.dav, name: 'response' });
  return (href, item) => {
    const properties: Markup[] = [];
    const absent: Markup[] = [...missing];
    for (const property of found) {
      const value = property.value(item);
      if (value !== undefined) properties.push(property.write(value));
      else if (byName) absent.push(element(property.name));
    }
    const stats = [
      ...(properties.length > 0 || absent.length === 0
        ? [writePropstat([writeProp([joined(properties)]), okStatus])]
        : []),
      ...(absent.length > 0 ? [propstat('404 Not Found', absent)] : []),
    ];
    return writeResponse([writeHref([href]), ...stats]);
  };
}

/** One `response` of a multistatus: the properties found (200) and those not (404). */
export function propertiesResponse<T>(
  href: string,
  table: PropertyTable<T>,
  item: T,
  request: PropertyRequest,
): Markup {
  return responder(table, request)(href, item);
}

/** A `response` that only has a status: a multiget href not found, a sync deletion. */
export function statusResponse(href: string, status: string): Markup {
  return dav('response', dav('href', href), dav('status', `HTTP/1.1 ${status}`));
}

export const MULTISTATUS: QName = { ns: NS.dav, name: 'multistatus' };
