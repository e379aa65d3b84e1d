/**
 * The JSON file `/account/export` answers, for the OpenAPI document: the format's name and version
 * head the file that src/service/formats/account-json.ts writes.
 */
import { z } from 'zod';
import { ACCOUNT_JSON_FORMAT } from '../../service/formats/account-json.js';

export const accountExport = z
  .looseObject({
    format: z.literal(ACCOUNT_JSON_FORMAT),
    version: z.int().positive(),
  })
  .meta({
    description:
      "The account's lossless JSON export (settings, projects, contexts, live tasks; docs/operations.md), written as the command line's `export` writes it: text as it is, not HTML-escaped.",
  });
