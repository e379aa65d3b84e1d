import type { PortableAccount } from '../../domain/portable.js';
import { FormatError } from './account-json.js';

export function readTodoistBackup(_zip: Buffer): PortableAccount {
  throw new FormatError('Todoist backups are not read yet');
}
