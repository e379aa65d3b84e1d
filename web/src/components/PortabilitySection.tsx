import { useSignal } from '@preact/signals';
import type { ImportFormat, ImportReport } from '../../../src/client/index.js';
import { syncNow } from '../actions.ts';
import { account } from '../session.ts';
import { failureMessage } from './account-status.ts';

const FORMATS: readonly ImportFormat[] = ['json', 'ics', 'todoist'];

const FORMAT_NAMES: Readonly<Record<ImportFormat, string>> = {
  json: 'Task Service JSON (.json)',
  ics: 'iCalendar tasks (.ics)',
  todoist: "Todoist backup (.zip) or project's CSV (.csv)",
};

const KIND_NAMES: Readonly<Record<ImportReport['changed'][number]['kind'], string>> = {
  project: 'Project',
  context: 'Context',
  task: 'Task',
};

/** The format a file's name suggests; the list lets the person say otherwise. */
function formatOfName(name: string): ImportFormat | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.ics') || lower.endsWith('.ical')) return 'ics';
  if (lower.endsWith('.zip') || lower.endsWith('.csv')) return 'todoist';
  return null;
}

/** Downloads of the account's data, as the command line's `export` writes it. */
export function ExportSection() {
  return (
    <section class="settings-section" aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p class="hint">
        Your settings, projects, contexts and tasks, to keep or to take elsewhere. JSON keeps every field and imports
        back exactly; iCalendar is read by other task apps.
      </p>
      <div class="buttons">
        <a class="button" href={account.exportAddress('json')} download>
          Download JSON
        </a>
        <a class="button" href={account.exportAddress('ics')} download>
          Download iCalendar
        </a>
      </div>
    </section>
  );
}

function CountsRow({ name, counts }: { readonly name: string; readonly counts: ImportReport['tasks'] }) {
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{counts.created}</td>
      <td>{counts.updated}</td>
      <td>{counts.unchanged}</td>
    </tr>
  );
}

/** What an import would do (or did): counts per kind, the records by name, what nothing takes. */
function ReportView({ report }: { readonly report: ImportReport }) {
  const changes = [report.projects, report.contexts, report.tasks].reduce(
    (sum, counts) => sum + counts.created + counts.updated,
    0,
  );
  const shown = report.changed.length;
  return (
    <div class="import-report" aria-label={report.dry_run ? 'Import preview' : 'Import result'}>
      <table class="import-counts">
        <thead>
          <tr>
            <th scope="col" />
            <th scope="col">{report.dry_run ? 'Would be created' : 'Created'}</th>
            <th scope="col">{report.dry_run ? 'Would be updated' : 'Updated'}</th>
            <th scope="col">Unchanged</th>
          </tr>
        </thead>
        <tbody>
          <CountsRow name="Projects" counts={report.projects} />
          <CountsRow name="Contexts" counts={report.contexts} />
          <CountsRow name="Tasks" counts={report.tasks} />
        </tbody>
      </table>
      {report.settings_changed && (
        <p class="status">Your settings {report.dry_run ? 'would take' : 'took'} the file's.</p>
      )}
      {shown > 0 && (
        <ul class="import-records" aria-label={report.dry_run ? 'Records that would change' : 'Records changed'}>
          {report.changed.map((record, index) => (
            <li key={index}>
              <span class={`import-change ${record.change}`}>{record.change === 'created' ? 'new' : 'updated'}</span>{' '}
              {KIND_NAMES[record.kind]}: {record.name}
            </li>
          ))}
          {changes > shown && <li class="status">…and {changes - shown} more.</li>}
        </ul>
      )}
      {report.unmapped.length > 0 && (
        <div class="import-unmapped">
          <p>Not mapped, and left out of the import ({report.unmapped.length}):</p>
          <ul aria-label="Not mapped">
            {report.unmapped.map((line, index) => (
              <li key={index}>{line}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/**
 * A file from another app (or an export of this one) into the account: Preview asks the server
 * what it would change without changing anything, then Import does it and the app syncs. Every
 * name from the file is shown as text.
 */
export function ImportSection() {
  const file = useSignal<File | null>(null);
  const format = useSignal<ImportFormat>('json');
  const preview = useSignal<ImportReport | null>(null);
  const status = useSignal<string | null>(null);
  const busy = useSignal(false);

  const choose = (chosen: File | null): void => {
    file.value = chosen;
    preview.value = null;
    status.value = null;
    const guessed = chosen === null ? null : formatOfName(chosen.name);
    if (guessed !== null) format.value = guessed;
  };

  const run = async (dryRun: boolean): Promise<void> => {
    const chosen = file.value;
    if (chosen === null) {
      status.value = 'Choose a file first.';
      return;
    }
    busy.value = true;
    try {
      const report = await account.importFile(chosen, format.value, dryRun, chosen.name);
      preview.value = report;
      if (dryRun) {
        status.value = 'Nothing is changed until you press Import.';
      } else {
        status.value = `Imported ${chosen.name}.`;
        syncNow();
      }
    } catch (error) {
      preview.value = null;
      status.value = failureMessage(dryRun ? 'No preview' : 'Not imported', error);
    } finally {
      busy.value = false;
    }
  };

  const previewed = preview.value !== null && preview.value.dry_run;
  return (
    <section class="settings-section" aria-labelledby="import-heading">
      <h2 id="import-heading">Import</h2>
      <p class="hint">
        From a JSON export, an iCalendar file of tasks, or a Todoist backup. Importing the same file again changes
        nothing.
      </p>
      <form
        class="import-form"
        onSubmit={(event) => {
          event.preventDefault();
          void run(true);
        }}
      >
        <label class="field">
          <span>File</span>
          <input
            type="file"
            name="file"
            accept=".json,.ics,.ical,.zip,.csv"
            onChange={(event) => choose(event.currentTarget.files?.[0] ?? null)}
          />
        </label>
        <label class="field">
          <span>Format</span>
          <select
            name="format"
            value={format.value}
            onChange={(event) => {
              const chosen = event.currentTarget.value;
              format.value = FORMATS.find((name) => name === chosen) ?? 'json';
              preview.value = null;
            }}
          >
            {FORMATS.map((name) => (
              <option key={name} value={name}>
                {FORMAT_NAMES[name]}
              </option>
            ))}
          </select>
        </label>
        <div class="buttons">
          <button type="submit" disabled={busy.value || file.value === null}>
            Preview
          </button>
          <button type="button" disabled={busy.value || !previewed} onClick={() => void run(false)}>
            Import
          </button>
        </div>
      </form>
      {preview.value !== null && <ReportView report={preview.value} />}
      <p role="status" class="status">
        {status.value}
      </p>
    </section>
  );
}
