import http from 'node:http';
import https from 'node:https';
import type { CheckedTarget } from './targets.js';

/**
 * An idle kept connection is closed after this long (sooner when the receiver's Keep-Alive header
 * asks), and a hook's agent is dropped once it has been unused this long.
 */
const IDLE_MS = 4000;

interface Kept {
  readonly url: string;
  readonly address: string;
  readonly agent: http.Agent;
  idle: NodeJS.Timeout;
}

/**
 * One kept connection per hook to its checked address, so that a run of deliveries pays one
 * TCP (and TLS) handshake, not one per delivery. A hook's deliveries go one at a time, so one
 * connection is all it uses. A new URL or address (DNS is checked before each run) gets a new one.
 */
export class ReceiverConnections {
  readonly #kept = new Map<string, Kept>();

  /** The agent for this hook's deliveries to `target`. */
  agentFor(hookKey: string, target: CheckedTarget): http.Agent {
    const url = target.url.href;
    const kept = this.#kept.get(hookKey);
    if (kept !== undefined && kept.url === url && kept.address === target.address) {
      kept.idle.refresh();
      return kept.agent;
    }
    if (kept !== undefined) this.#drop(hookKey, kept);
    const options = { keepAlive: true, maxSockets: 1, timeout: IDLE_MS };
    const agent = target.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    const idle = setTimeout(() => this.#dropIfIdle(hookKey), IDLE_MS).unref();
    this.#kept.set(hookKey, { url, address: target.address, agent, idle });
    return agent;
  }

  /** Closes every connection (the sender stops). */
  closeAll(): void {
    for (const [hookKey, kept] of this.#kept) this.#drop(hookKey, kept);
  }

  /** Kept only while a delivery is under way (at most 10 s), else dropped. */
  #dropIfIdle(hookKey: string): void {
    const kept = this.#kept.get(hookKey);
    if (kept === undefined) return;
    if (Object.keys(kept.agent.sockets).length > 0) kept.idle.refresh();
    else this.#drop(hookKey, kept);
  }

  #drop(hookKey: string, kept: Kept): void {
    clearTimeout(kept.idle);
    kept.agent.destroy();
    this.#kept.delete(hookKey);
  }
}
