/**
 * README.md stays in step with the code: every env var of src/config.ts is in its configuration
 * table, the `metadata` limits are the schema's, and the console screenshot says how to get Chromium;
 * a newcomer reading from the top meets `$BASE`/`$TOKEN` defined before use and, in Quick start, how
 * to stop the service so the signal reaches it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { METADATA_KEY_MAX_CHARS, METADATA_MAX_BYTES, METADATA_MAX_KEYS } from '../../src/turns/request-schemas.js';
import { ROOT } from './support/child.js';

const readme = () => readFileSync(path.join(ROOT, 'README.md'), 'utf8');

it('states the metadata limits of the request schema where the create body lists metadata', () => {
  const line = /`metadata\?` \(([^)]*)\)/.exec(readme())?.[1] ?? '';
  expect(line).toContain(`at most ${METADATA_MAX_KEYS} keys of at most ${METADATA_KEY_MAX_CHARS} characters each`);
  expect(line).toContain(`at most ${METADATA_MAX_BYTES} bytes serialized`);
});

it('says how to install Chromium (SETUP_CHROMIUM=1) before its console screenshot command', () => {
  const text = readme();
  const shot = text.indexOf('--screenshot=console.png');
  expect(shot).toBeGreaterThan(0);
  expect(text.slice(text.lastIndexOf('\n### ', shot), shot)).toContain('SETUP_CHROMIUM=1');
});

it('documents every environment variable of src/config.ts in the README configuration table', () => {
  const config = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
  const schema = config.slice(config.indexOf('const EnvSchema'), config.indexOf('\n});', config.indexOf('const EnvSchema')));
  const vars = [...schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  expect(vars.length).toBeGreaterThan(20);
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const documented = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  expect(vars.filter((v) => !documented.has(v))).toEqual([]);
});

/** Every .ts file under `dir` (relative to the repository root). */
function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8'));
}

it('documents, in README.md and openapi.yaml, every error code the service answers with 503, and idempotency_key_in_use', () => {
  const codes = new Set<string>(['idempotency_key_in_use']);
  for (const text of [...sources('src'), ...sources('routes')]) {
    for (const m of text.matchAll(/HttpError\(\s*503,\s*'([a-z_]+)'/g)) codes.add(m[1]);
    for (const m of text.matchAll(/(?:DomainError\(|super\()\s*'([a-z_]+)',[^;]{0,500}?,\s*503\b/g)) codes.add(m[1]);
  }
  for (const code of ['database_unavailable', 'skills_unavailable', 'brain_unavailable', 'shutting_down']) expect(codes).toContain(code);
  const text = readme();
  const spec = readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8');
  expect([...codes].filter((c) => !text.includes(`\`${c}\``)).sort(), 'README.md').toEqual([]);
  expect([...codes].filter((c) => !spec.includes(`\`${c}\``)).sort(), 'openapi.yaml').toEqual([]);
});

it('defines $BASE and $TOKEN before any text or example uses them', () => {
  const text = readme();
  for (const name of ['BASE', 'TOKEN']) {
    const defined = text.search(new RegExp(`^${name}=`, 'm'));
    expect(defined, `${name}= at the start of a line`).toBeGreaterThan(0);
    // The first use is the one inside the sentence that introduces the definition, nothing earlier.
    const firstUse = text.indexOf(`$${name}`);
    expect(text.slice(firstUse, defined)).not.toContain('\n## ');
    expect(text.slice(firstUse, defined)).not.toMatch(/curl /);
  }
});

it('says in Quick start how to stop the service so the signal reaches it, as Operations does', () => {
  const text = readme();
  const quick = text.slice(text.indexOf('## Quick start'), text.indexOf('\n## ', text.indexOf('## Quick start') + 1));
  expect(quick).toContain('kill -TERM -- -<pgid>');
  expect(quick).toContain('node scripts/start.mjs');
  expect(quick).toMatch(/npm[^.]*does not always pass SIGTERM on/);
  const operations = text.slice(text.indexOf('\n## Operations'));
  expect(operations).toContain('kill -TERM -- -<pgid>');
  expect(operations).toContain('node scripts/start.mjs');
});

/**
 * GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, each space a
 * `-`, inline code marks dropped; a repeated heading gets `-1`, `-2`… (github-slugger's rules).
 */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

it('links only to headings that exist (the contents line and every #anchor)', () => {
  const text = readme();
  const known = anchors(text);
  const links = [...text.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1]);
  expect(links.length).toBeGreaterThan(20);
  expect(links.filter((a) => !known.has(a))).toEqual([]);
  const contents = text.split('\n').find((l) => l.startsWith('Contents: ')) ?? '';
  const sections = text.split('\n').filter((l) => l.startsWith('## ')).length;
  expect(contents.match(/\]\(#/g)?.length).toBe(sections);
});
