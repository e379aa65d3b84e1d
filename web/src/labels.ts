/**
 * Managing projects and contexts (WEB.md 1b): each change goes to the server at once (the queue
 * holds tasks only) and either shows, or says why it did not happen. The server renames or
 * clears the label on its tasks; the next sync round brings those, so it is asked for at once.
 */
import { formatWireDate } from '../../src/client/index.js';
import { syncNow } from './actions.ts';
import { TaskServiceError, UnavailableError, type Label, type LabelBody } from './api.ts';
import { randomId } from './ids.ts';
import { api } from './session.ts';
import { contexts, projects, zone } from './state.ts';

export type LabelKind = 'projects' | 'contexts';

/** What became of a change: null when it was saved, else what to tell. */
export type LabelOutcome = string | null;

async function save(kind: LabelKind, body: LabelBody): Promise<LabelOutcome> {
  let saved: Label;
  try {
    saved = await api.saveLabel(kind, body);
  } catch (error) {
    if (error instanceof TaskServiceError) return `Not saved: ${error.retmsg}`;
    if (error instanceof UnavailableError) return 'Not saved: the server cannot be reached.';
    throw error;
  }
  const target = kind === 'projects' ? projects : contexts;
  const next = new Map(target.value);
  if (saved.deleted === null) next.set(saved.id, saved);
  else next.delete(saved.id);
  target.value = next;
  syncNow();
  return null;
}

export async function createLabel(kind: LabelKind, name: string): Promise<LabelOutcome> {
  return save(kind, { id: randomId(), name });
}

export async function renameLabel(kind: LabelKind, label: Label, name: string): Promise<LabelOutcome> {
  return save(kind, { id: label.id, name });
}

export async function setColor(project: Label, color: string | null): Promise<LabelOutcome> {
  return save('projects', { id: project.id, color });
}

export async function setArchived(project: Label, archived: boolean): Promise<LabelOutcome> {
  return save('projects', { id: project.id, archived: archived ? formatWireDate(new Date(), zone.value) : null });
}

export async function deleteLabel(kind: LabelKind, label: Label): Promise<LabelOutcome> {
  return save(kind, { id: label.id, deleted: formatWireDate(new Date(), zone.value) });
}
