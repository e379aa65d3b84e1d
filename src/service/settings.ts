import type { Account, SettingsPatch } from '../domain/account.js';
import { invalid } from '../domain/errors.js';
import { isValidTimeZone } from '../domain/zone.js';
import type { Store } from '../store/store.js';

export class SettingsService {
  constructor(private readonly store: Store) {}

  async update(accountId: number, patch: SettingsPatch): Promise<Account> {
    if (patch.timezone !== undefined && !isValidTimeZone(patch.timezone))
      throw invalid('timezone', 'unknown IANA zone');
    return this.store.updateSettings(accountId, patch);
  }
}
