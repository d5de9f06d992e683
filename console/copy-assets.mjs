// Build step for the turn console: copy the static files (HTML, CSS) next to the compiled
// JavaScript in dist/console/ (tsc -p console/tsconfig.json writes the .js files there).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../dist/console');
mkdirSync(out, { recursive: true });
for (const name of readdirSync(here)) {
  if (/\.(html|css)$/.test(name)) copyFileSync(path.join(here, name), path.join(out, name));
}
