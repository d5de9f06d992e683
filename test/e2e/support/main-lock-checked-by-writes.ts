/**
 * The service process as src/main.ts runs it (main(): exit 1 when DATA_DIR is taken over), but
 * with DATA_DIR/service.lock looked up by its timer only every 10 minutes: in a test, only the look
 * before each write can find the folder taken over (src/store/database.ts keepOwnership).
 * Run with spawnService(env, undefined, { entry: 'test/e2e/support/main-lock-checked-by-writes.ts' }).
 */
import { main } from '../../../src/main.js';

main({ ownershipCheckMs: 600_000 }).catch((err) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
