import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebhookService } from '../../service/webhooks.js';
import { authenticate, type Gate } from '../auth.js';
import { readQuery } from '../query.js';
import { readJsonBody } from '../request-body.js';
import { readWebhookRequest } from '../schemas/webhook.js';
import { sendJson } from '../send.js';
import { WireError } from '../wire/errors.js';
import { jsonString } from '../wire/json.js';
import { renderDeliveryAttempt, renderWebhook } from '../wire/webhook.js';

export interface WebhookRouteDeps {
  readonly gate: Gate;
  readonly webhooks: WebhookService;
  /** `serve --webhook-allow-private`: plain http URLs are taken too (one's own network). */
  readonly allowPrivate: boolean;
}

/** API.md 4.7: GET lists an account's hooks, POST makes, changes or deletes one; each hook's log. */
export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  async function list(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    const hooks = await deps.webhooks.list(account.id);
    return sendJson(reply, `{"entries":[${hooks.map((hook) => renderWebhook(hook, account.timezone)).join(',')}]}`);
  }

  async function change(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    const asked = readWebhookRequest(readJsonBody(request), deps.allowPrivate);
    const zone = account.timezone;
    switch (asked.action) {
      case 'create': {
        const { hook, secret } = await deps.webhooks.create(account.id, asked);
        return sendJson(reply, renderWebhook(hook, zone, secret));
      }
      case 'update': {
        const change = {
          ...(asked.url === undefined ? {} : { url: asked.url }),
          ...(asked.events === undefined ? {} : { events: asked.events }),
          ...(asked.active === undefined ? {} : { active: asked.active }),
        };
        return sendJson(reply, renderWebhook(await deps.webhooks.update(account.id, asked.id, change), zone));
      }
      case 'delete': {
        await deps.webhooks.remove(account.id, asked.id);
        return sendJson(reply, `{"id":${jsonString(asked.id)},"deleted":true}`);
      }
    }
  }

  async function deliveries(
    request: FastifyRequest<{ Params: { readonly id: string } }>,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    const { id } = request.params;
    const hooks = await deps.webhooks.list(account.id);
    if (!hooks.some((hook) => hook.id === id)) throw WireError.invalidParameter('id', 'no such webhook');
    const attempts = await deps.webhooks.deliveries(account.id, id);
    return sendJson(
      reply,
      `{"entries":[${attempts.map((attempt) => renderDeliveryAttempt(attempt, account.timezone)).join(',')}]}`,
    );
  }

  app.get('/v1/webhooks', list);
  app.post('/v1/webhooks', change);
  app.get('/v1/webhooks/:id/deliveries', deliveries);
}
