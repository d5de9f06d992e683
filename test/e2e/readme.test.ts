/** README.md stays in step with the code: every env var of src/config.ts is in its configuration table. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './support/child.js';

it('documents every environment variable of src/config.ts in the README configuration table', () => {
  const config = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
  const schema = config.slice(config.indexOf('const EnvSchema'), config.indexOf('\n});', config.indexOf('const EnvSchema')));
  const vars = [...schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  expect(vars.length).toBeGreaterThan(20);
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const documented = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  expect(vars.filter((v) => !documented.has(v))).toEqual([]);
});
