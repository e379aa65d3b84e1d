import { DavError } from './errors.js';
import { childNamed, childrenNamed, readXml, type XmlElement } from './xml/reader.js';
import { NS, type QName } from './xml/writer.js';

/** WebDAV and CalDAV request bodies, read into typed requests (RFC 4918, 4791, 6578). */

/** Which properties a PROPFIND or REPORT asks for. */
export type PropertyRequest =
  | { readonly kind: 'allprop' }
  | { readonly kind: 'propname' }
  | { readonly kind: 'prop'; readonly names: readonly QName[]; readonly calendarData?: CalendarDataRequest };

/** How `calendar-data` is asked for: a selection of components and properties, expansion. */
export interface CalendarDataRequest {
  /** The properties of the VTODO to return, or undefined for all. */
  readonly todoProperties?: ReadonlySet<string>;
  /** Whether the VTODO is returned at all (a `comp` selection may leave it out). */
  readonly todo: boolean;
  readonly expand?: TimeRange;
  readonly limitRecurrenceSet?: TimeRange;
}

export interface TimeRange {
  /** In µs since the epoch, UTC; open ends are undefined. */
  readonly start?: number;
  readonly end?: number;
}

export type Collation = 'i;ascii-casemap' | 'i;octet' | 'i;unicode-casemap';

export interface TextMatch {
  readonly text: string;
  readonly collation: Collation;
  readonly negate: boolean;
}

export interface ParamFilter {
  readonly name: string;
  readonly isNotDefined: boolean;
  readonly textMatch?: TextMatch;
}

export interface PropFilter {
  readonly name: string;
  readonly isNotDefined: boolean;
  readonly timeRange?: TimeRange;
  readonly textMatch?: TextMatch;
  readonly paramFilters: readonly ParamFilter[];
  readonly allOf: boolean;
}

export interface CompFilter {
  readonly name: string;
  readonly isNotDefined: boolean;
  readonly timeRange?: TimeRange;
  readonly propFilters: readonly PropFilter[];
  readonly compFilters: readonly CompFilter[];
  readonly allOf: boolean;
}

export type Report =
  | { readonly kind: 'calendar-query'; readonly properties: PropertyRequest; readonly filter: CompFilter }
  | { readonly kind: 'calendar-multiget'; readonly properties: PropertyRequest; readonly hrefs: readonly string[] }
  | {
      readonly kind: 'sync-collection';
      readonly properties: PropertyRequest;
      readonly syncToken: string;
      readonly limit?: number;
    };

/** The most hrefs one calendar-multiget may name; clients ask for pages of 10 to 100. */
export const MULTIGET_MAX_HREFS = 1000;

export const COLLATIONS: readonly Collation[] = ['i;ascii-casemap', 'i;octet', 'i;unicode-casemap'];

const is = (element: XmlElement, ns: string, name: string): boolean => element.ns === ns && element.name === name;

/** The body as XML, or undefined when it is empty. */
export function xmlBody(text: string): XmlElement | undefined {
  return text.trim() === '' ? undefined : readXml(text);
}

function calendarDataRequest(element: XmlElement): CalendarDataRequest {
  const calendar = childNamed(element, NS.caldav, 'comp');
  const expandElement = childNamed(element, NS.caldav, 'expand');
  const limitElement = childNamed(element, NS.caldav, 'limit-recurrence-set');
  const expand = expandElement === undefined ? undefined : timeRangeOf(expandElement);
  const limitRecurrenceSet = limitElement === undefined ? undefined : timeRangeOf(limitElement);
  const ranges = {
    ...(expand === undefined ? {} : { expand }),
    ...(limitRecurrenceSet === undefined ? {} : { limitRecurrenceSet }),
  };
  if (calendar === undefined) return { todo: true, ...ranges };
  const todoComp = childrenNamed(calendar, NS.caldav, 'comp').find(
    (comp) => comp.attributes.get('name')?.toUpperCase() === 'VTODO',
  );
  const allComps = childNamed(calendar, NS.caldav, 'allcomp') !== undefined;
  if (todoComp === undefined) return { todo: allComps, ...ranges };
  if (childNamed(todoComp, NS.caldav, 'allprop') !== undefined) return { todo: true, ...ranges };
  const names = childrenNamed(todoComp, NS.caldav, 'prop').map((prop) =>
    (prop.attributes.get('name') ?? '').toLowerCase(),
  );
  return { todo: true, todoProperties: new Set(names), ...ranges };
}

/** The properties asked for by the `prop`, `allprop` or `propname` child of `parent`. */
export function propertyRequestOf(parent: XmlElement | undefined): PropertyRequest {
  if (parent === undefined) return { kind: 'allprop' };
  if (childNamed(parent, NS.dav, 'propname') !== undefined) return { kind: 'propname' };
  const prop = childNamed(parent, NS.dav, 'prop');
  if (prop === undefined) return { kind: 'allprop' };
  const names = prop.children.map((child): QName => ({ ns: child.ns, name: child.name }));
  const data = childNamed(prop, NS.caldav, 'calendar-data');
  return data === undefined
    ? { kind: 'prop', names }
    : { kind: 'prop', names, calendarData: calendarDataRequest(data) };
}

export function propfindOf(body: XmlElement | undefined): PropertyRequest {
  if (body === undefined) return { kind: 'allprop' };
  if (!is(body, NS.dav, 'propfind')) throw DavError.badRequest('a PROPFIND body is a DAV:propfind element');
  return propertyRequestOf(body);
}

/** A UTC time of a time-range (`20261121T093000Z`) in µs, or a 400. */
function utcMicros(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(text.trim());
  if (match === null) throw DavError.badRequest(`${text} is no UTC date-time (like 20261121T093000Z)`);
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1, hour ?? 0, minute ?? 0, second ?? 0) * 1000;
}

function timeRangeOf(element: XmlElement): TimeRange {
  const start = utcMicros(element.attributes.get('start'));
  const end = utcMicros(element.attributes.get('end'));
  if (start === undefined && end === undefined) throw DavError.badRequest('a time-range has a start, an end or both');
  return { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
}

function textMatchOf(element: XmlElement | undefined): TextMatch | undefined {
  if (element === undefined) return undefined;
  const collation = element.attributes.get('collation') ?? 'i;ascii-casemap';
  const known = COLLATIONS.find((candidate) => candidate === collation);
  if (known === undefined)
    throw DavError.forbidden(`the collation ${collation} is not supported`, {
      ns: NS.caldav,
      name: 'supported-collation',
    });
  return { text: element.text, collation: known, negate: element.attributes.get('negate-condition') === 'yes' };
}

function nameOf(element: XmlElement): string {
  const name = element.attributes.get('name');
  if (name === undefined || name === '') throw DavError.badRequest(`a ${element.name} names what it filters`);
  return name.toUpperCase();
}

function rangeChild(element: XmlElement): TimeRange | undefined {
  const range = childNamed(element, NS.caldav, 'time-range');
  return range === undefined ? undefined : timeRangeOf(range);
}

function paramFilterOf(element: XmlElement): ParamFilter {
  const textMatch = textMatchOf(childNamed(element, NS.caldav, 'text-match'));
  return {
    name: nameOf(element),
    isNotDefined: childNamed(element, NS.caldav, 'is-not-defined') !== undefined,
    ...(textMatch === undefined ? {} : { textMatch }),
  };
}

function propFilterOf(element: XmlElement): PropFilter {
  const timeRange = rangeChild(element);
  const textMatch = textMatchOf(childNamed(element, NS.caldav, 'text-match'));
  return {
    name: nameOf(element),
    isNotDefined: childNamed(element, NS.caldav, 'is-not-defined') !== undefined,
    ...(timeRange === undefined ? {} : { timeRange }),
    ...(textMatch === undefined ? {} : { textMatch }),
    paramFilters: childrenNamed(element, NS.caldav, 'param-filter').map(paramFilterOf),
    allOf: element.attributes.get('test') !== 'anyof',
  };
}

function compFilterOf(element: XmlElement): CompFilter {
  const timeRange = rangeChild(element);
  return {
    name: nameOf(element),
    isNotDefined: childNamed(element, NS.caldav, 'is-not-defined') !== undefined,
    ...(timeRange === undefined ? {} : { timeRange }),
    propFilters: childrenNamed(element, NS.caldav, 'prop-filter').map(propFilterOf),
    compFilters: childrenNamed(element, NS.caldav, 'comp-filter').map(compFilterOf),
    // RFC 4791 ands every condition; a `test="anyof"` (as CardDAV has) ors them.
    allOf: element.attributes.get('test') !== 'anyof',
  };
}

function hrefsOf(body: XmlElement): string[] {
  return childrenNamed(body, NS.dav, 'href').map((href) => href.text.trim());
}

export function reportOf(body: XmlElement | undefined): Report {
  if (body === undefined) throw DavError.badRequest('a REPORT needs a body naming the report');
  const properties = propertyRequestOf(body);
  if (is(body, NS.caldav, 'calendar-query')) {
    const filter = childNamed(body, NS.caldav, 'filter');
    const top = filter === undefined ? undefined : childNamed(filter, NS.caldav, 'comp-filter');
    if (top === undefined)
      throw DavError.forbidden('a calendar-query has a filter of VCALENDAR', { ns: NS.caldav, name: 'valid-filter' });
    return { kind: 'calendar-query', properties, filter: compFilterOf(top) };
  }
  if (is(body, NS.caldav, 'calendar-multiget')) {
    const hrefs = hrefsOf(body);
    if (hrefs.length > MULTIGET_MAX_HREFS)
      throw DavError.forbidden(`a calendar-multiget names at most ${MULTIGET_MAX_HREFS} hrefs`, {
        ns: NS.dav,
        name: 'number-of-matches-within-limits',
      });
    return { kind: 'calendar-multiget', properties, hrefs };
  }
  if (is(body, NS.dav, 'sync-collection')) {
    const limit = childNamed(body, NS.dav, 'limit');
    const nresults = limit === undefined ? undefined : childNamed(limit, NS.dav, 'nresults');
    const count = nresults === undefined ? undefined : Number(nresults.text.trim());
    if (count !== undefined && (!Number.isSafeInteger(count) || count < 1))
      throw DavError.badRequest('DAV:nresults is a positive whole number');
    return {
      kind: 'sync-collection',
      properties,
      syncToken: childNamed(body, NS.dav, 'sync-token')?.text.trim() ?? '',
      ...(count === undefined ? {} : { limit: count }),
    };
  }
  throw DavError.forbidden(`the report ${body.name} is not supported here`, { ns: NS.dav, name: 'supported-report' });
}

/** What a PROPPATCH, MKCALENDAR or extended MKCOL sets and removes. */
export interface PropertyUpdate {
  readonly set: readonly XmlElement[];
  readonly remove: readonly QName[];
}

function updateOf(body: XmlElement): PropertyUpdate {
  const set: XmlElement[] = [];
  const remove: QName[] = [];
  for (const child of body.children) {
    const prop = childNamed(child, NS.dav, 'prop');
    if (prop === undefined) continue;
    if (is(child, NS.dav, 'set')) set.push(...prop.children);
    else if (is(child, NS.dav, 'remove'))
      remove.push(...prop.children.map((each) => ({ ns: each.ns, name: each.name })));
  }
  return { set, remove };
}

export function proppatchOf(body: XmlElement | undefined): PropertyUpdate {
  if (body === undefined || !is(body, NS.dav, 'propertyupdate'))
    throw DavError.badRequest('a PROPPATCH body is a DAV:propertyupdate element');
  return updateOf(body);
}

/** MKCALENDAR (`C:mkcalendar`) or extended MKCOL (`D:mkcol`): what the new collection is set to. */
export function mkcolOf(body: XmlElement | undefined, method: 'MKCALENDAR' | 'MKCOL'): PropertyUpdate {
  if (body === undefined) return { set: [], remove: [] };
  const expected = method === 'MKCALENDAR' ? is(body, NS.caldav, 'mkcalendar') : is(body, NS.dav, 'mkcol');
  if (!expected)
    throw DavError.badRequest(`a ${method} body is a ${method === 'MKCALENDAR' ? 'C:mkcalendar' : 'D:mkcol'} element`);
  return updateOf(body);
}
