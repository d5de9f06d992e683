import { defineConfig } from 'vitest/config';

// As scripts/node-version.mjs for the npm scripts: `npx vitest run <file>` on an older Node would
// crash in better-sqlite3 (built for Node 24's ABI) with a bare SIGSEGV in a worker.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `refusing to run the tests: this service needs Node.js 24; this is ${process.version} (${process.execPath}). ` +
      'Run them through `bash scripts/setup <command>` (e.g. `bash scripts/setup npx vitest run test/e2e/turns-api.test.ts`), which brings Node 24, or put Node 24 first on PATH (`. scripts/node24.sh`).\n',
  );
  process.exit(2);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
