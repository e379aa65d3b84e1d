import { z } from 'zod';
import type { SettingsPatch } from '../../domain/account.js';
import { WireError } from '../wire/errors.js';
import { firstIssue } from './issues.js';
import { text } from './text.js';

/** What POST /v1/settings may change; other fields are ignored (clients send the settings back). */
export const settingsShape = z.object({
  nickname: text(0, 100).optional(),
  timezone: text(1, 64).optional(),
  language: text(1, 35).optional(),
  week_start: z.int().min(0).max(6).optional(),
});

export function readSettings(body: unknown): SettingsPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw WireError.invalidParameter('body', 'expected an object');
  }
  const parsed = settingsShape.safeParse(body);
  if (!parsed.success) throw firstIssue(parsed.error);
  const { nickname, timezone, language, week_start: weekStart } = parsed.data;
  return {
    ...(nickname === undefined ? {} : { nickname }),
    ...(timezone === undefined ? {} : { timezone }),
    ...(language === undefined ? {} : { language }),
    ...(weekStart === undefined ? {} : { weekStart }),
  };
}
