import { setImmediate as nextTurn } from 'node:timers/promises';
import { collectionOf, resourceNameOf, sameCollection, type CollectionId } from '../domain/calendar.js';
import type { Project } from '../domain/label.js';
import type { SyncPosition } from '../domain/sync.js';
import type { Task } from '../domain/task.js';
import { sendMultistatus, type DavContext } from './context.js';
import { DavError } from './errors.js';
import { MULTISTATUS, propertiesResponse, responder } from './multistatus.js';
import {
  collectionHref,
  collectionOfSegment,
  DAV_ROOT,
  homeHref,
  objectHref,
  principalHref,
  type DavTarget,
} from './paths.js';
import {
  COLLECTION_PROPERTIES,
  HOME_PROPERTIES,
  OBJECT_PROPERTIES,
  PRINCIPAL_PROPERTIES,
  ROOT_PROPERTIES,
  type CollectionView,
} from './properties.js';
import { icsOf } from './render.js';
import type { PropertyRequest } from './requests.js';
import { NS, type Markup } from './xml/writer.js';

/** The name the inbox shows in a client's list of calendars. */
export const INBOX_DISPLAY_NAME = 'Inbox';

function projectView(project: Project, head: SyncPosition): CollectionView {
  return { id: { kind: 'project', projectId: project.id }, displayName: project.name, color: project.color, head };
}

/** The collection a segment names, as CalDAV shows it, or 404. */
export async function collectionView(context: DavContext, segment: string): Promise<CollectionView> {
  const { services, account } = context;
  const head = await services.listing.position(account.id);
  const id = collectionOfSegment(segment);
  if (id.kind === 'inbox') return { id, displayName: INBOX_DISPLAY_NAME, color: null, head };
  const project = await services.calendars.project(account.id, id.projectId);
  if (project === undefined) throw DavError.notFound();
  return projectView(project, head);
}

/** Every collection of the account: the inbox first, then each live project. */
export async function allCollectionViews(context: DavContext): Promise<CollectionView[]> {
  const { services, account } = context;
  const head = await services.listing.position(account.id);
  const projects = await services.calendars.projects(account.id);
  return [
    { id: { kind: 'inbox' }, displayName: INBOX_DISPLAY_NAME, color: null, head },
    ...projects.map((project) => projectView(project, head)),
  ];
}

/** The live tasks of one collection, read from one snapshot in batches. */
export async function* tasksOf(context: DavContext, collection: CollectionId): AsyncGenerator<Task> {
  const listing = await context.services.listing.open(context.account.id, 'task', {});
  try {
    for await (const batch of listing.batches()) {
      // Other requests get their turn between batches: SQLite reads without waiting for anything.
      await nextTurn();
      for (const task of batch) {
        const where = collectionOf(task);
        if (where !== undefined && sameCollection(where, collection)) yield task;
      }
    }
  } finally {
    await listing.close();
  }
}

/** Writes the response of each task of one collection to one request (its plan made once). */
export function objectResponder(
  context: DavContext,
  collection: CollectionId,
  request: PropertyRequest,
  calendarData: (task: Task) => string = (task) => icsOf(task, context.account.timezone),
): (task: Task, made?: string) => Markup {
  const respond = responder(OBJECT_PROPERTIES, request);
  const { username } = context.account;
  return (task, made) =>
    respond(objectHref(username, collection, resourceNameOf(task)), {
      task,
      calendarData: () => made ?? calendarData(task),
    });
}

/** The depth of a PROPFIND: 0 or 1; `infinity` is refused, and an absent header counts as 0. */
function depthOf(context: DavContext): 0 | 1 {
  const raw = context.request.headers['depth'];
  const header = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
  if (header === undefined || header === '0') return 0;
  if (header === '1') return 1;
  if (header === 'infinity')
    throw DavError.forbidden('PROPFIND with Depth: infinity is not served: ask with Depth 0 or 1', {
      ns: NS.dav,
      name: 'propfind-finite-depth',
    });
  throw DavError.badRequest('Depth is 0, 1 or infinity');
}

export async function propfind(context: DavContext, target: DavTarget, properties: PropertyRequest) {
  const depth = depthOf(context);
  const { account } = context;
  const viewer = { account, writable: context.writable };
  const responses = async function* (): AsyncGenerator<Markup> {
    switch (target.kind) {
      case 'root':
        yield propertiesResponse(DAV_ROOT, ROOT_PROPERTIES, viewer, properties);
        return;
      case 'principal':
        yield propertiesResponse(principalHref(account.username), PRINCIPAL_PROPERTIES, viewer, properties);
        return;
      case 'home': {
        yield propertiesResponse(homeHref(account.username), HOME_PROPERTIES, viewer, properties);
        if (depth === 0) return;
        const respond = responder(COLLECTION_PROPERTIES, properties);
        for (const view of await allCollectionViews(context))
          yield respond(collectionHref(account.username, view.id), { ...viewer, view });
        return;
      }
      case 'collection': {
        const view = await collectionView(context, target.segment);
        const href = collectionHref(account.username, view.id);
        yield propertiesResponse(href, COLLECTION_PROPERTIES, { ...viewer, view }, properties);
        if (depth === 0) return;
        const respond = objectResponder(context, view.id, properties);
        for await (const task of tasksOf(context, view.id)) yield respond(task);
        return;
      }
      case 'object': {
        const collection = collectionOfSegment(target.segment);
        const task = await context.services.calendars.find(account.id, collection, target.name);
        if (task === undefined) throw DavError.notFound();
        yield objectResponder(context, collection, properties)(task);
        return;
      }
      case 'unknown':
        throw DavError.notFound();
    }
  };
  // Nothing is sent before the first responses are made: a 404 is a 404, not a cut stream.
  return sendMultistatus(context, MULTISTATUS, responses());
}
