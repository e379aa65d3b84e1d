import { openTestPostgresStore } from './postgres-fixture.js';
import { storeSuite } from './suite.js';

// Each test gets a database of its own, dropped afterwards.
storeSuite('postgres', async (options) => {
  const { store, cleanup } = await openTestPostgresStore(options);
  return { store, cleanup };
});
