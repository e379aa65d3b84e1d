import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks' signature: HMAC-SHA256, keyed by the base64 after `whsec_`, over
 * `<webhook-id>.<webhook-timestamp>.<body>`, sent as `v1,<base64>`.
 */
export function signature(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}
