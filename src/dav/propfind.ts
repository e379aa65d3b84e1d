import { collectionOf, resourceNameOf, sameCollection, type CollectionId } from '../domain/calendar.js';
import type { Project } from '../domain/label.js';
import type { Task } from '../domain/task.js';
import { sendStreamed, type DavContext } from './context.js';
import { DavError } from './errors.js';
import { MULTISTATUS, propertiesResponse } from './multistatus.js';
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
  collectionProperties,
  homeProperties,
  objectProperties,
  principalProperties,
  rootProperties,
  type CollectionView,
} from './properties.js';
import { icsOf } from './render.js';
import type { PropertyRequest } from './requests.js';
import { NS, type Markup } from './xml/writer.js';

/** The name the inbox shows in a client's list of calendars. */
export const INBOX_DISPLAY_NAME = 'Inbox';

function projectView(project: Project, headRev: number): CollectionView {
  return { id: { kind: 'project', projectId: project.id }, displayName: project.name, color: null, headRev };
}

/** The collection a segment names, as CalDAV shows it, or 404. */
export async function collectionView(context: DavContext, segment: string): Promise<CollectionView> {
  const { services, account } = context;
  const headRev = (await services.listing.head(account.id)).rev;
  const id = collectionOfSegment(segment);
  if (id.kind === 'inbox') return { id, displayName: INBOX_DISPLAY_NAME, color: null, headRev };
  const project = await services.calendars.project(account.id, id.projectId);
  if (project === undefined) throw DavError.notFound();
  return projectView(project, headRev);
}

/** Every collection of the account: the inbox first, then each live project. */
export async function allCollectionViews(context: DavContext): Promise<CollectionView[]> {
  const { services, account } = context;
  const headRev = (await services.listing.head(account.id)).rev;
  const projects = await services.calendars.projects(account.id);
  return [
    { id: { kind: 'inbox' }, displayName: INBOX_DISPLAY_NAME, color: null, headRev },
    ...projects.map((project) => projectView(project, headRev)),
  ];
}

/** The live tasks of one collection, read from one snapshot in batches. */
export async function* tasksOf(context: DavContext, collection: CollectionId): AsyncGenerator<Task> {
  const listing = await context.services.listing.open(context.account.id, 'task', {});
  try {
    for await (const batch of listing.batches()) {
      for (const task of batch) {
        const where = collectionOf(task);
        if (where !== undefined && sameCollection(where, collection)) yield task;
      }
    }
  } finally {
    await listing.close();
  }
}

export function objectResponse(
  context: DavContext,
  collection: CollectionId,
  task: Task,
  request: PropertyRequest,
): Markup {
  const href = objectHref(context.account.username, collection, resourceNameOf(task));
  return propertiesResponse(
    href,
    objectProperties(task, () => icsOf(task, context.account.timezone)),
    request,
  );
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
  const { account, writable } = context;
  const responses = async function* (): AsyncGenerator<Markup> {
    switch (target.kind) {
      case 'root':
        yield propertiesResponse(DAV_ROOT, rootProperties(account), properties);
        return;
      case 'principal':
        yield propertiesResponse(principalHref(account.username), principalProperties(account), properties);
        return;
      case 'home': {
        yield propertiesResponse(homeHref(account.username), homeProperties(account, writable), properties);
        if (depth === 0) return;
        for (const view of await allCollectionViews(context)) {
          const href = collectionHref(account.username, view.id);
          yield propertiesResponse(href, collectionProperties(account, view, writable), properties);
        }
        return;
      }
      case 'collection': {
        const view = await collectionView(context, target.segment);
        const href = collectionHref(account.username, view.id);
        yield propertiesResponse(href, collectionProperties(account, view, writable), properties);
        if (depth === 0) return;
        for await (const task of tasksOf(context, view.id)) yield objectResponse(context, view.id, task, properties);
        return;
      }
      case 'object': {
        const collection = collectionOfSegment(target.segment);
        const task = await context.services.calendars.find(account.id, collection, target.name);
        if (task === undefined) throw DavError.notFound();
        yield objectResponse(context, collection, task, properties);
        return;
      }
      case 'unknown':
        throw DavError.notFound();
    }
  };
  // The first response is made before anything is sent, so that a 404 is a 404, not a cut stream.
  const iterator = responses();
  const first = await iterator.next();
  const rest = async function* (): AsyncGenerator<Markup> {
    if (first.done !== true) yield first.value;
    yield* { [Symbol.asyncIterator]: () => iterator };
  };
  return sendStreamed(context.reply, MULTISTATUS, rest());
}
