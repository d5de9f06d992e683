// `npm start`: run the built service (dist/) — no compiling here. When the build is missing or
// older than its sources (src/, routes/, console/, tsconfig*.json), prints one line saying to run
// `npm run build` (or `npm run dev` to run from source) and exits 1.
// `node scripts/start.mjs --check` only checks (exit 0 = build is current, 1 = not).
import './node-version.mjs'; // first: one clear line instead of a crash on an old Node
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outputs = ['dist/src/main.js', 'dist/console/app.js', 'dist/console/index.html'].map((p) => path.join(root, p));
const sourceDirs = ['src', 'routes', 'console'].map((p) => path.join(root, p));
const sourceFiles = ['tsconfig.json', 'tsconfig.build.json'].map((p) => path.join(root, p));

/** Newest modification time (ms) of the build's inputs that exist here (an image has none). */
function newestSource() {
  let newest = 0;
  const visit = (file) => {
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(file)) visit(path.join(file, name));
    } else if (/\.(ts|mts|html|css|json|mjs)$/.test(file)) {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const p of [...sourceDirs, ...sourceFiles]) visit(p);
  return newest;
}

/** Why the build cannot be started (a short phrase), or null when it is current. */
function buildProblem() {
  const missing = outputs.filter((p) => !existsSync(p));
  if (missing.length > 0) return `no build in dist/ (${path.relative(root, missing[0])} is missing)`;
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  if (newestSource() > built) return 'the build in dist/ is older than the sources';
  return null;
}

const problem = buildProblem();
if (process.argv.includes('--check')) process.exit(problem ? 1 : 0);
if (problem) {
  console.error(`turn-service: ${problem}: run \`npm run build\` first (or \`npm run dev\` to run from source)`);
  process.exit(1);
}
process.setSourceMapsEnabled(true);
const { main } = await import(pathToFileURL(path.join(root, 'dist/src/main.js')).href);
await main();
