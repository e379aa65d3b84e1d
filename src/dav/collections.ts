import { collectionOfSegment, collectionHref, type DavTarget } from './paths.js';
import { sendXml, type DavContext } from './context.js';
import { DavError } from './errors.js';
import { keyOf, MULTISTATUS } from './multistatus.js';
import { collectionView } from './propfind.js';
import type { PropertyUpdate } from './requests.js';
import { childNamed } from './xml/reader.js';
import { dav, element, NS, xmlDocument, type QName } from './xml/writer.js';

/** Collections as projects: MKCALENDAR, extended MKCOL, PROPPATCH and DELETE (CALDAV.md section 4). */

const DISPLAY_NAME = keyOf({ ns: NS.dav, name: 'displayname' });
const RESOURCE_TYPE = keyOf({ ns: NS.dav, name: 'resourcetype' });

/** Properties a client may set when making a calendar, though they are not kept (they hold no data of ours). */
const ACCEPTED_ON_MAKE: ReadonlySet<string> = new Set([
  RESOURCE_TYPE,
  keyOf({ ns: NS.caldav, name: 'supported-calendar-component-set' }),
  keyOf({ ns: NS.caldav, name: 'calendar-description' }),
  keyOf({ ns: NS.caldav, name: 'calendar-timezone' }),
  keyOf({ ns: NS.apple, name: 'calendar-color' }),
  keyOf({ ns: NS.apple, name: 'calendar-order' }),
]);

function collectionSegment(target: DavTarget): string {
  if (target.kind !== 'collection') throw DavError.methodNotAllowed('OPTIONS, PROPFIND, REPORT');
  return target.segment;
}

export async function makeCollection(
  context: DavContext,
  target: DavTarget,
  update: PropertyUpdate,
  method: 'MKCALENDAR' | 'MKCOL',
) {
  const segment = collectionSegment(target);
  const { account, services, reply } = context;
  if (collectionOfSegment(segment).kind === 'inbox')
    throw new DavError(405, 'the inbox exists', { ns: NS.dav, name: 'resource-must-be-null' });
  if (method === 'MKCOL') {
    const type = update.set.find((element) => keyOf(element) === RESOURCE_TYPE);
    if (type === undefined || childNamed(type, NS.caldav, 'calendar') === undefined)
      throw DavError.forbidden('only calendar collections can be made here', {
        ns: NS.dav,
        name: 'valid-resourcetype',
      });
  }
  const refused = update.set.filter((property) => {
    const key = keyOf(property);
    return key !== DISPLAY_NAME && !ACCEPTED_ON_MAKE.has(key);
  });
  if (refused.length > 0)
    throw DavError.forbidden(`these properties cannot be set: ${refused.map((property) => property.name).join(', ')}`, {
      ns: NS.dav,
      name: 'cannot-modify-protected-property',
    });
  const displayName = update.set.find((property) => keyOf(property) === DISPLAY_NAME)?.text;
  const named = displayName === undefined || displayName.trim() === '' ? undefined : displayName;
  await services.calendars.makeCollection(account, segment, named);
  void reply.header('location', collectionHref(account.username, collectionOfSegment(segment)));
  return reply.code(201).send();
}

function propstat(names: readonly QName[], status: string) {
  return dav('propstat', dav('prop', ...names.map((name) => element(name))), dav('status', `HTTP/1.1 ${status}`));
}

/**
 * PROPPATCH of a collection: `displayname` renames its project. All or nothing (RFC 4918 9.2):
 * when one property cannot be set, none is, and the others answer 424.
 */
export async function patchCollection(context: DavContext, target: DavTarget, update: PropertyUpdate) {
  const { account, services, reply } = context;
  const names = [...update.set.map((property): QName => ({ ns: property.ns, name: property.name })), ...update.remove];
  const href = context.request.url.split('?')[0] ?? '';
  const segment = target.kind === 'collection' ? target.segment : undefined;
  const view = segment === undefined ? undefined : await collectionView(context, segment);
  const isProject = view !== undefined && view.id.kind === 'project';
  const settable = (name: QName): boolean => isProject && keyOf(name) === DISPLAY_NAME;
  const newName = update.set.find((property) => keyOf(property) === DISPLAY_NAME)?.text;
  const ok =
    names.every(settable) &&
    !update.remove.some((name) => keyOf(name) === DISPLAY_NAME) &&
    (newName === undefined || newName.trim() !== '');
  if (ok && newName !== undefined && view?.id.kind === 'project')
    await services.calendars.renameCollection(account, view.id.projectId, newName);
  const refused = names.filter((name) => !settable(name));
  const stats = ok
    ? [propstat(names, '200 OK')]
    : [
        ...(refused.length > 0 ? [propstat(refused, '403 Forbidden')] : [propstat(names, '403 Forbidden')]),
        ...(refused.length > 0 && refused.length < names.length
          ? [propstat(names.filter(settable), '424 Failed Dependency')]
          : []),
      ];
  return sendXml(reply, 207, xmlDocument(MULTISTATUS, dav('response', dav('href', href), ...stats)));
}

export async function deleteCollection(context: DavContext, segment: string) {
  const { account, services, reply } = context;
  const collection = collectionOfSegment(segment);
  if (collection.kind === 'inbox')
    throw new DavError(403, 'the inbox holds the tasks without a project: it cannot be deleted');
  await services.calendars.deleteCollection(account, collection.projectId);
  return reply.code(204).send();
}
