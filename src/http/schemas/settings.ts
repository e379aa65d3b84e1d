import { z } from 'zod';
import type { SettingsPatch } from '../../domain/account.js';
import { WireError } from '../wire/errors.js';
import { firstIssue } from './issues.js';

/** What POST /v1/settings may change; other fields are ignored (clients send the settings back). */
const settingsShape = z.object({
  nickname: z.string().max(100).optional(),
  timezone: z.string().min(1).max(64).optional(),
  language: z.string().min(1).max(35).optional(),
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
