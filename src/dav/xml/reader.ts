import { SaxesParser, type SaxesTagNS } from 'saxes';

/** An element of a WebDAV request body: its namespace and local name, children and text. */
export interface XmlElement {
  readonly ns: string;
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /** The element's own text (CDATA included), children's text left out. */
  readonly text: string;
}

/** Why a body was not read as XML: `tooLarge` when a bound was passed, else malformed. */
export class XmlBodyError extends Error {
  constructor(
    message: string,
    readonly tooLarge: boolean,
  ) {
    super(message);
    this.name = 'XmlBodyError';
  }
}

/**
 * Bounds no real client comes near: a calendar-multiget of a thousand hrefs has some 3,000
 * elements, and WebDAV bodies nest less than 10 deep. A hostile body is refused once it passes one.
 */
export const XML_BOUNDS = { maxDepth: 32, maxElements: 20_000 } as const;

interface OpenElement {
  readonly ns: string;
  readonly name: string;
  readonly attributes: Map<string, string>;
  readonly children: XmlElement[];
  text: string;
}

/**
 * Reads a request body as namespaced XML with saxes. A document type declaration is refused
 * outright, so no entity of a DTD is ever defined, let alone expanded (saxes knows only the five
 * predefined ones and character references, and refuses any other reference); depth and element
 * count are bounded while reading, before any tree grows past them (a test reading a large
 * answer of the service may lift the bounds).
 */
export function readXml(source: string, bounds: { maxDepth: number; maxElements: number } = XML_BOUNDS): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const stack: OpenElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  // Thrown from the handlers, each ends the parse at once (saxes calls them synchronously).
  parser.on('error', (error) => {
    throw new XmlBodyError(`not well-formed XML: ${error.message}`, false);
  });
  parser.on('doctype', () => {
    throw new XmlBodyError('a document type declaration is not accepted', false);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    elements += 1;
    if (stack.length >= bounds.maxDepth)
      throw new XmlBodyError(`XML nested deeper than ${bounds.maxDepth} elements`, true);
    if (elements > bounds.maxElements) throw new XmlBodyError(`more than ${bounds.maxElements} XML elements`, true);
    const attributes = new Map<string, string>();
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.uri !== 'http://www.w3.org/2000/xmlns/' && attribute.prefix !== 'xmlns')
        attributes.set(attribute.local, attribute.value);
    }
    stack.push({ ns: tag.uri, name: tag.local, attributes, children: [], text: '' });
  });
  const addText = (text: string): void => {
    const open = stack[stack.length - 1];
    if (open !== undefined) open.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const open = stack.pop();
    if (open === undefined) return;
    const element: XmlElement = open;
    const parent = stack[stack.length - 1];
    if (parent === undefined) root = element;
    else parent.children.push(element);
  });
  parser.write(source).close();
  if (root === undefined) throw new XmlBodyError('no XML element in the body', false);
  return root;
}

/** The children of `element` with that namespace and name. */
export function childrenNamed(element: XmlElement, ns: string, name: string): XmlElement[] {
  return element.children.filter((child) => child.ns === ns && child.name === name);
}

export function childNamed(element: XmlElement, ns: string, name: string): XmlElement | undefined {
  return element.children.find((child) => child.ns === ns && child.name === name);
}
