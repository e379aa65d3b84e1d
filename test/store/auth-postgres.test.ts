import { authStoreSuite } from './auth-suite.js';
import { openTestPostgresStore } from './postgres-fixture.js';

authStoreSuite('postgres', openTestPostgresStore);
