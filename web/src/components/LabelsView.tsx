import { useSignal, type Signal } from '@preact/signals';
import type { Label } from '../api.ts';
import {
  createLabel,
  deleteLabel,
  renameLabel,
  setArchived,
  setColor,
  type LabelKind,
  type LabelOutcome,
} from '../labels.ts';
import { sortedContexts, sortedProjects, tasks } from '../state.ts';
import { hashOf } from '../views.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';

/** The color shown for a project without one, and offered first in its color field. */
export const NO_COLOR = '#8c959f';

const NOUNS: Readonly<Record<LabelKind, string>> = { projects: 'project', contexts: 'context' };

/** How many open tasks carry the label, for the delete question. */
function openTasksWith(kind: LabelKind, name: string): number {
  let count = 0;
  for (const task of tasks.value.values()) {
    if (task.completed === null && task.trashed === null && task[kind === 'projects' ? 'project' : 'context'] === name)
      count += 1;
  }
  return count;
}

function staying(count: number): string {
  if (count === 0) return 'No open task has it.';
  return count === 1 ? 'Its open task stays, without it.' : `Its ${count} open tasks stay, without it.`;
}

function LabelItem({
  kind,
  label,
  status,
}: {
  readonly kind: LabelKind;
  readonly label: Label;
  readonly status: Signal<string | null>;
}) {
  const confirming = useSignal(false);
  const noun = NOUNS[kind];
  const report = (what: string) => (outcome: LabelOutcome) => {
    status.value = outcome ?? what;
  };
  const archived = (label.archived ?? null) !== null;
  return (
    <li class="label-item">
      {kind === 'projects' && (
        <input
          type="color"
          aria-label={`Color of ${label.name}`}
          value={(label.color ?? NO_COLOR).slice(0, 7)}
          onChange={(event) => void setColor(label, event.currentTarget.value).then(report('Color saved.'))}
        />
      )}
      <input
        type="text"
        aria-label={`Name of ${label.name}`}
        value={label.name}
        maxLength={200}
        onChange={(event) => {
          const name = event.currentTarget.value.trim();
          if (name === '' || name === label.name) return;
          void renameLabel(kind, label, name).then(report(`Renamed to ${name}.`));
        }}
      />
      {archived && <span class="archived">archived</span>}
      <a class="button" href={hashOf({ kind: kind === 'projects' ? 'project' : 'context', id: label.id })}>
        Show<span class="visually-hidden"> {label.name}</span>
      </a>
      {kind === 'projects' && (
        <button
          type="button"
          onClick={() =>
            void setArchived(label, !archived).then(report(`${archived ? 'Unarchived' : 'Archived'} ${label.name}.`))
          }
        >
          {archived ? 'Unarchive' : 'Archive'}
          <span class="visually-hidden"> {label.name}</span>
        </button>
      )}
      <button type="button" class="danger" onClick={() => (confirming.value = true)}>
        Delete<span class="visually-hidden"> {label.name}</span>
      </button>
      {confirming.value && (
        <ConfirmDialog
          title={`Delete this ${noun}?`}
          confirm={`Delete ${noun}`}
          onCancel={() => (confirming.value = false)}
          onConfirm={() => {
            confirming.value = false;
            void deleteLabel(kind, label).then(report(`Deleted ${label.name}.`));
          }}
        >
          “{label.name}” will be deleted. {staying(openTasksWith(kind, label.name))}
        </ConfirmDialog>
      )}
    </li>
  );
}

function LabelSection({ kind, labels }: { readonly kind: LabelKind; readonly labels: readonly Label[] }) {
  const status = useSignal<string | null>(null);
  const name = useSignal('');
  const noun = NOUNS[kind];
  const title = kind === 'projects' ? 'Projects' : 'Contexts';
  return (
    <section class="settings-section" aria-labelledby={`${kind}-heading`}>
      <h2 id={`${kind}-heading`}>{title}</h2>
      <form
        class="new-label"
        onSubmit={(event) => {
          event.preventDefault();
          const text = name.value.trim();
          if (text === '') return;
          void createLabel(kind, text).then((outcome) => {
            status.value = outcome ?? `Added ${text}.`;
            if (outcome === null) name.value = '';
          });
        }}
      >
        <input
          type="text"
          aria-label={`New ${noun} name`}
          placeholder={kind === 'projects' ? 'House, Work, Trip to Lisbon…' : '@home, @phone, @errands…'}
          maxLength={200}
          value={name.value}
          onInput={(event) => (name.value = event.currentTarget.value)}
        />
        <button type="submit">Add {noun}</button>
      </form>
      {labels.length === 0 ? (
        <p class="hint">
          {kind === 'projects'
            ? 'No projects yet. Add one here, or type #Name in quick add.'
            : 'No contexts yet. Add one here, or type @name in quick add.'}
        </p>
      ) : (
        <ul class="label-list" aria-label={title}>
          {labels.map((label) => (
            <LabelItem key={label.id} kind={kind} label={label} status={status} />
          ))}
        </ul>
      )}
      <p role="status" class="status">
        {status.value}
      </p>
    </section>
  );
}

/** Projects (name, color, archive, delete) and contexts (name, delete), made and changed here. */
export function LabelsView() {
  return (
    <div class="settings-page">
      <LabelSection kind="projects" labels={sortedProjects.value} />
      <LabelSection kind="contexts" labels={sortedContexts.value} />
    </div>
  );
}
