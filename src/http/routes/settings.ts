import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SettingsService } from '../../service/settings.js';
import { authenticate, type Gate } from '../auth.js';
import { readQuery } from '../query.js';
import { readJsonBody } from '../request-body.js';
import { readSettings } from '../schemas/settings.js';
import { sendJson } from '../send.js';
import { renderSettings } from '../wire/render.js';
import { nowMicros } from '../../domain/time.js';

export function registerSettingsRoutes(
  app: FastifyInstance,
  deps: { readonly gate: Gate; readonly settings: SettingsService },
): void {
  async function getSettings(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    // The account came with the token, read in the same lookup: no second read.
    return sendJson(reply, renderSettings(account, nowMicros()));
  }

  async function updateSettings(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    const updated = await deps.settings.update(account.id, readSettings(readJsonBody(request)));
    return sendJson(reply, renderSettings(updated, nowMicros()));
  }

  app.get('/v1/settings', getSettings);
  app.post('/v1/settings', updateSettings);
}
