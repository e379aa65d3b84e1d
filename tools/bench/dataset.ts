import type { ContextDraft, ProjectDraft } from '../../src/domain/label.js';
import { NEW_TASK, type Attribute, type Label, type Priority, type TaskDraft } from '../../src/domain/task.js';
import { microsFromMillis, MICROS_PER_DAY, type Micros } from '../../src/domain/time.js';
import { Random } from './random.js';

/*
 * What a generated account holds: a few projects and contexts, and tasks that look like a real
 * to-do list (short titles, some notes, tags, dates, a share done), including text that needs
 * HTML escaping and non-ASCII text, so rendering costs what it costs in real use. Everything is
 * derived from a seed: the same account index always gets the same records.
 */

const WORDS = [
  'call',
  'email',
  'buy',
  'fix',
  'review',
  'plan',
  'book',
  'pay',
  'clean',
  'write',
  'read',
  'send',
  'order',
  'check',
  'update',
  'prepare',
  'milk',
  'eggs',
  'bread',
  'invoice',
  'report',
  'slides',
  'dentist',
  'garage',
  'flights',
  'hotel',
  'taxes',
  'insurance',
  'bike',
  'garden',
  'kitchen',
  'meeting',
  'budget',
  'notes',
  'draft',
  'contract',
  'birthday',
  'gift',
  'tickets',
  'passport',
  'library',
  'laundry',
  'plants',
  'backup',
  'laptop',
  'printer',
  'school',
  'forms',
  'rent',
  'café',
  'Müller',
  'naïve',
  '東京',
  'Zürich',
  'Q&A',
  '<draft>',
  "Bob's",
  'résumé',
  'smörgåsbord',
  '🎉',
] as const;

const TAGS = ['home', 'work', 'errand', 'call', 'email', 'urgent', 'later', 'reading', 'family', 'money'] as const;

const PROJECT_NAMES = ['Home & Garden', 'Work', 'Reading list', 'Taxes 2026', 'Trip to 東京'] as const;
const CONTEXT_NAMES = ['@home', '@office', '@phone'] as const;

const UNSCHEDULED: readonly Attribute[] = ['inbox', 'inbox', 'next', 'next', 'noplan', 'waiting'];
const PRIORITIES: readonly Priority[] = [0, 0, 0, 1, 1, 2, 3];

/** 2026-01-01T00:00:00Z: generated dates fall in the year after it. */
const BASE_TIME: Micros = microsFromMillis(Date.UTC(2026, 0, 1));
const MICROS_PER_HOUR = MICROS_PER_DAY / 24;

/** A record id like clients and the server make them: 22 characters of URL-safe base64. */
function recordId(random: Random): string {
  const bytes = Buffer.alloc(16);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = random.below(256);
  return bytes.toString('base64url');
}

function sentence(random: Random, minWords: number, maxWords: number): string {
  const count = minWords + random.below(maxWords - minWords + 1);
  const words: string[] = [];
  for (let i = 0; i < count; i += 1) words.push(random.pick(WORDS));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One account's generated records, produced in order; tasks come in batches for the writer. */
export class AccountDataset {
  readonly projects: readonly ProjectDraft[];
  readonly contexts: readonly ContextDraft[];
  readonly #random: Random;
  readonly #projectLabels: readonly Label[];
  readonly #contextLabels: readonly Label[];

  constructor(accountIndex: number) {
    this.#random = new Random(0x5eed0000 + accountIndex);
    this.projects = PROJECT_NAMES.map((name) => ({
      id: recordId(this.#random),
      name,
      notes: '',
      archived: null,
      color: null,
      deleted: null,
    }));
    this.contexts = CONTEXT_NAMES.map((name) => ({ id: recordId(this.#random), name, deleted: null }));
    this.#projectLabels = this.projects.map(({ id, name }) => ({ id, name }));
    this.#contextLabels = this.contexts.map(({ id, name }) => ({ id, name }));
  }

  task(): TaskDraft {
    const random = this.#random;
    const scheduled = random.chance(0.4);
    const startAt = scheduled
      ? BASE_TIME + random.below(365) * MICROS_PER_DAY + (7 + random.below(13)) * MICROS_PER_HOUR
      : null;
    const endAt = startAt !== null && random.chance(0.5) ? startAt + (1 + random.below(3)) * MICROS_PER_HOUR : null;
    const tags: string[] = [];
    for (let count = random.below(4); tags.length < count;) {
      const tag = random.pick(TAGS);
      if (!tags.includes(tag)) tags.push(tag);
    }
    return {
      ...NEW_TASK,
      id: recordId(random),
      title: sentence(random, 2, 7),
      notes: random.chance(0.35) ? sentence(random, 8, 50) : '',
      attribute: startAt !== null ? 'plan' : random.pick(UNSCHEDULED),
      allDay: false,
      startAt,
      endAt,
      completed: random.chance(0.3) ? BASE_TIME + random.below(365 * 24) * MICROS_PER_HOUR : null,
      trashed: random.chance(0.02) ? BASE_TIME + random.below(365 * 24) * MICROS_PER_HOUR : null,
      deleted: null,
      project: random.chance(0.6) ? random.pick(this.#projectLabels) : null,
      context: random.chance(0.3) ? random.pick(this.#contextLabels) : null,
      tags,
      priority: random.pick(PRIORITIES),
      repeater: startAt !== null && random.chance(0.05) ? 'FREQ=WEEKLY' : null,
      icalExtras: '',
    };
  }
}
