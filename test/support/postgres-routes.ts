import { afterAll, beforeAll, describe } from 'vitest';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';

/** How the code under test reaches the test PostgreSQL server. */
export interface PostgresRoute {
  /** Through a pooler in transaction mode: what the service is told with --database-pooled. */
  readonly pooled: boolean;
  /** The URL to give the code under test for `url`, a database of the test server. */
  url(url: string): string;
}

const DIRECT: PostgresRoute = { pooled: false, url: (url) => url };

/**
 * Declares the tests `suite` declares twice: once straight to PostgreSQL, and once through a real
 * PgBouncer in transaction pooling mode, started before them and stopped after. The second run
 * is what shows that nothing relies on session state (docs/operations.md, "Behind PgBouncer").
 * Connections a test makes to check the database itself need no route: they use the URL as is.
 */
export function describeOnEachRoute(
  title: string,
  options: { readonly timeout?: number },
  suite: (route: PostgresRoute) => void,
): void {
  describe(title, options, () => suite(DIRECT));
  describe(`${title}, through PgBouncer in transaction mode`, options, () => {
    let bouncer: PgBouncer | undefined;
    beforeAll(async () => {
      bouncer = await startPgBouncer();
    });
    afterAll(async () => {
      await bouncer?.stop();
    });
    suite({
      pooled: true,
      url(url) {
        if (bouncer === undefined) throw new Error('PgBouncer has not started');
        return bouncer.route(url);
      },
    });
  });
}
