import { collectionOfSegment, collectionHref, type DavTarget } from './paths.js';
import { sendXml, type DavContext } from './context.js';
import { DavError } from './errors.js';
import { keyOf, MULTISTATUS } from './multistatus.js';
import { collectionView } from './propfind.js';
import { CALENDAR_COLOR } from './properties.js';
import { PROJECT_COLOR } from '../domain/label.js';
import type { PropertyUpdate } from './requests.js';
import { childNamed } from './xml/reader.js';
import { dav, element, NS, xmlDocument, type QName } from './xml/writer.js';

/** Collections as projects: MKCALENDAR, extended MKCOL, PROPPATCH and DELETE (CALDAV.md section 4). */

const DISPLAY_NAME = keyOf({ ns: NS.dav, name: 'displayname' });
const RESOURCE_TYPE = keyOf({ ns: NS.dav, name: 'resourcetype' });
const COLOR = keyOf(CALENDAR_COLOR);

/** Properties a client may set when making a calendar, though they are not kept (they hold no data of ours). */
const ACCEPTED_ON_MAKE: ReadonlySet<string> = new Set([
  RESOURCE_TYPE,
  keyOf({ ns: NS.caldav, name: 'supported-calendar-component-set' }),
  keyOf({ ns: NS.caldav, name: 'calendar-description' }),
  keyOf({ ns: NS.caldav, name: 'calendar-timezone' }),
  COLOR,
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
  // A color the service cannot keep is left out, as the other properties a new calendar may carry.
  const color = colorOf(update.set.find((property) => keyOf(property) === COLOR)?.text);
  await services.calendars.makeCollection(account, segment, named, color ?? null);
  void reply.header('location', collectionHref(account.username, collectionOfSegment(segment)));
  return reply.code(201).send();
}

function propstat(names: readonly QName[], status: string) {
  return dav('propstat', dav('prop', ...names.map((name) => element(name))), dav('status', `HTTP/1.1 ${status}`));
}

/** A `calendar-color` as the service keeps it, or undefined when it is none it can keep. */
function colorOf(text: string | undefined): string | undefined {
  const color = text?.trim();
  return color !== undefined && PROJECT_COLOR.test(color) ? color : undefined;
}

/**
 * PROPPATCH of a project's collection: `displayname` renames the project, `calendar-color` sets or
 * (removed) clears its color. All or nothing (RFC 4918 9.2): when one property cannot be set,
 * none is; it answers 403 and the others 424.
 */
export async function patchCollection(context: DavContext, target: DavTarget, update: PropertyUpdate) {
  const { account, services, reply } = context;
  const href = context.request.url.split('?')[0] ?? '';
  const view = target.kind === 'collection' ? await collectionView(context, target.segment) : undefined;
  const projectId = view?.id.kind === 'project' ? view.id.projectId : undefined;
  const patch: { displayName?: string; color?: string | null } = {};
  const accepted: QName[] = [];
  const refused: QName[] = [];
  for (const property of update.set) {
    const key = keyOf(property);
    const name: QName = { ns: property.ns, name: property.name };
    const color = key === COLOR ? colorOf(property.text) : undefined;
    if (projectId !== undefined && key === DISPLAY_NAME && property.text.trim() !== '') {
      patch.displayName = property.text;
      accepted.push(name);
    } else if (projectId !== undefined && color !== undefined) {
      patch.color = color;
      accepted.push(name);
    } else refused.push(name);
  }
  for (const name of update.remove) {
    if (projectId !== undefined && keyOf(name) === COLOR) {
      patch.color = null;
      accepted.push(name);
    } else refused.push(name);
  }
  if (refused.length === 0 && projectId !== undefined && accepted.length > 0)
    await services.calendars.patchCollection(account, projectId, patch);
  const stats =
    refused.length === 0
      ? [propstat(accepted, '200 OK')]
      : [
          propstat(refused, '403 Forbidden'),
          ...(accepted.length > 0 ? [propstat(accepted, '424 Failed Dependency')] : []),
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
