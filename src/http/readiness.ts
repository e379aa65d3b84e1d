/**
 * Whether this process should be sent new requests: `GET /readyz` answers 503 from the moment it
 * starts draining (SIGTERM), so a load balancer stops sending before the listener closes.
 */
export class Readiness {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  drain(): void {
    this.#draining = true;
  }
}
