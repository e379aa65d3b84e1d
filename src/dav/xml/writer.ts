/**
 * The one place WebDAV answers are written as XML. Text is escaped here, always: a child that is
 * a string is text, and markup can only come from `element`, so no caller can pass raw XML on.
 */

export const NS = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  calendarServer: 'http://calendarserver.org/ns/',
  apple: 'http://apple.com/ns/ical/',
} as const;

/** Prefixes declared once on the root of every answer. */
const PREFIXES: ReadonlyMap<string, string> = new Map([
  [NS.dav, 'd'],
  [NS.caldav, 'c'],
  [NS.calendarServer, 'cs'],
  [NS.apple, 'a'],
]);

export const ROOT_NAMESPACES = [...PREFIXES].map(([uri, prefix]) => ` xmlns:${prefix}="${uri}"`).join('');

/** A namespaced XML name. */
export interface QName {
  readonly ns: string;
  readonly name: string;
}

/** Only this module holds it, so only this module makes Markup. */
const WRITER = Symbol('xml writer');

/** Written XML: made by `element` only. */
export class Markup {
  constructor(
    made: typeof WRITER,
    readonly xml: string,
  ) {
    if (made !== WRITER) throw new Error('XML is written by xml/writer.ts only');
  }
}

const markup = (xml: string): Markup => new Markup(WRITER, xml);

export type XmlChild = Markup | string;

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => XML_ESCAPES[character] ?? character);
}

/** XML 1.0 cannot carry these characters at all, escaped or not. */
// eslint-disable-next-line no-control-regex -- these control characters are exactly what is matched
const NOT_XML_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function textOf(child: XmlChild): string {
  return child instanceof Markup ? child.xml : escapeXml(child.replace(NOT_XML_CHARACTERS, '\uFFFD'));
}

/** A name of ours is written with its declared prefix; any other with a declaration of its own. */
function tagOf(name: QName): { readonly open: string; readonly close: string } {
  const prefix = PREFIXES.get(name.ns);
  if (prefix !== undefined) return { open: `${prefix}:${name.name}`, close: `${prefix}:${name.name}` };
  const local = /^[A-Za-z_][A-Za-z0-9._-]*$/.test(name.name) ? name.name : '_';
  return name.ns === ''
    ? { open: `${local} xmlns=""`, close: local }
    : { open: `x:${local} xmlns:x="${escapeXml(name.ns)}"`, close: `x:${local}` };
}

export function element(name: QName, ...children: readonly XmlChild[]): Markup {
  return elementWith(name, {}, ...children);
}

/**
 * The element of one name, its tags made once: for the properties of many resources in one
 * answer, where `element` would spell the same tags again for each.
 */
export function elementOf(name: QName): (children: readonly XmlChild[]) => Markup {
  const tag = tagOf(name);
  const empty = markup(`<${tag.open}/>`);
  const open = `<${tag.open}>`;
  const close = `</${tag.close}>`;
  return (children) => {
    if (children.length === 0) return empty;
    let xml = open;
    for (const child of children) xml += textOf(child);
    return markup(xml + close);
  };
}

/** Markup written in pieces by this module's own functions, joined without escaping again. */
export function joined(parts: readonly Markup[]): Markup {
  let xml = '';
  for (const part of parts) xml += part.xml;
  return markup(xml);
}

/** An element with attributes (CalDAV's `<c:comp name="VTODO"/>`), their values escaped. */
export function elementWith(
  name: QName,
  attributes: Readonly<Record<string, string>>,
  ...children: readonly XmlChild[]
): Markup {
  const tag = tagOf(name);
  const written = Object.entries(attributes)
    .map(([attribute, value]) => ` ${attribute}="${escapeXml(value)}"`)
    .join('');
  if (children.length === 0) return markup(`<${tag.open}${written}/>`);
  return markup(`<${tag.open}${written}>${children.map(textOf).join('')}</${tag.close}>`);
}

export const dav = (name: string, ...children: readonly XmlChild[]): Markup =>
  element({ ns: NS.dav, name }, ...children);
export const caldav = (name: string, ...children: readonly XmlChild[]): Markup =>
  element({ ns: NS.caldav, name }, ...children);

/** The XML declaration and a root element that declares every prefix of ours. */
export function documentStart(root: QName): string {
  const tag = tagOf(root);
  return `<?xml version="1.0" encoding="utf-8"?>\n<${tag.open}${ROOT_NAMESPACES}>`;
}

export function documentEnd(root: QName): string {
  return `</${tagOf(root).close}>\n`;
}

/** A whole document of one root element. */
export function xmlDocument(root: QName, ...children: readonly XmlChild[]): string {
  return `${documentStart(root)}${children.map(textOf).join('')}${documentEnd(root)}`;
}
