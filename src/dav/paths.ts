import type { CollectionId } from '../domain/calendar.js';

/** Where CalDAV lives (CALDAV.md section 1). */
export const DAV_ROOT = '/dav/';
export const WELL_KNOWN = '/.well-known/caldav';
export const INBOX_SEGMENT = 'inbox';

/** What a request's path names. Usernames are checked against the account by the handler. */
export type DavTarget =
  | { readonly kind: 'root' }
  | { readonly kind: 'principal'; readonly username: string }
  | { readonly kind: 'home'; readonly username: string }
  | { readonly kind: 'collection'; readonly username: string; readonly segment: string }
  | { readonly kind: 'object'; readonly username: string; readonly segment: string; readonly name: string }
  | { readonly kind: 'unknown' };

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The target of a path (its query left out). A trailing slash is optional on collections, as
 * clients differ; an object never has one.
 */
export function targetOf(path: string): DavTarget {
  if (path === '/dav' || path === DAV_ROOT) return { kind: 'root' };
  if (!path.startsWith(DAV_ROOT)) return { kind: 'unknown' };
  const trailing = path.endsWith('/');
  const raw = path.slice(DAV_ROOT.length, trailing ? -1 : undefined).split('/');
  const parts = raw.map(decoded);
  if (parts.some((part) => part === undefined || part === '' || part === '.' || part === '..'))
    return { kind: 'unknown' };
  const [area, username, segment, name, ...rest] = parts as string[];
  if (username === undefined || rest.length > 0) return { kind: 'unknown' };
  if (area === 'principals') return segment === undefined ? { kind: 'principal', username } : { kind: 'unknown' };
  if (area !== 'calendars') return { kind: 'unknown' };
  if (segment === undefined) return { kind: 'home', username };
  if (name === undefined) return { kind: 'collection', username, segment };
  return trailing ? { kind: 'unknown' } : { kind: 'object', username, segment, name };
}

/** A path segment as written in an href: every character outside the unreserved set escaped. */
function encoded(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function principalHref(username: string): string {
  return `${DAV_ROOT}principals/${encoded(username)}/`;
}

export function homeHref(username: string): string {
  return `${DAV_ROOT}calendars/${encoded(username)}/`;
}

export function segmentOf(collection: CollectionId): string {
  return collection.kind === 'inbox' ? INBOX_SEGMENT : collection.projectId;
}

export function collectionHref(username: string, collection: CollectionId): string {
  return `${homeHref(username)}${encoded(segmentOf(collection))}/`;
}

export function objectHref(username: string, collection: CollectionId, name: string): string {
  return `${collectionHref(username, collection)}${encoded(name)}`;
}

/** The collection a segment names: the inbox, else the project of that id. */
export function collectionOfSegment(segment: string): CollectionId {
  return segment === INBOX_SEGMENT ? { kind: 'inbox' } : { kind: 'project', projectId: segment };
}

/** An href a client sent (absolute URL or path) as a path, or undefined when it is no URL. */
export function pathOfHref(href: string): string | undefined {
  try {
    return new URL(href.trim(), 'http://host.invalid').pathname;
  } catch {
    return undefined;
  }
}
