/**
 * README.md "Schedules": the curl commands that create a schedule — the `cron`, `at` and `after`
 * forms of `when` — run as written (bash, the real curl) against the real server, and create
 * what their comments say.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useScriptedService } from '../e2e/support/service.js';
import { ROOT } from '../e2e/support/child.js';

const harness = useScriptedService();
const run = promisify(execFile);

/** The shell commands of the section's first sh block that POST /v1/schedules, each joined from its lines. */
function createCommands(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Schedules'));
  const block = section.slice(section.indexOf('```sh\n') + 6, section.indexOf('\n```', section.indexOf('```sh\n')));
  const commands: string[] = [];
  let current: string | undefined;
  for (const line of block.split('\n')) {
    if (current === undefined) {
      if (line.startsWith('curl $BASE/v1/schedules -H')) current = line;
    } else current += `\n${line}`;
    if (current === undefined) continue;
    const open = (current.match(/'/g) ?? []).length % 2 === 1;
    if (!open && !current.endsWith('\\')) {
      commands.push(current);
      current = undefined;
    }
  }
  return commands;
}

describe('README schedule examples', () => {
  it('create a schedule with each form of when — cron, at, after — as their comments say', async () => {
    const commands = createCommands();
    const forms = commands.map((c) => /"when": \{"(cron|at|after)"/.exec(c)?.[1]);
    expect(forms).toEqual(['cron', 'at', 'after']);
    const created = [];
    for (const command of commands) {
      const before = Date.now();
      const { stdout } = await run('bash', ['-c', `${command.replace(/^curl /, 'curl -sS ')}`], { env: { ...process.env, BASE: harness.svc.url } });
      const body = JSON.parse(stdout);
      expect(body, command).toMatchObject({ id: expect.any(String), status: 'active', run_count: 0 });
      created.push({ body, before, after: Date.now() });
    }
    const [cron, at, after] = created;
    expect(cron.body).toMatchObject({ name: 'daily report', agent_id: 'reporter', when: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' } });
    expect(at.body).toMatchObject({ name: 'standup', when: { at: '2030-01-15T09:00:00+01:00' }, next_run_at: '2030-01-15T08:00:00.000Z' });
    expect(after.body).toMatchObject({ name: 'tea', when: { after: { value: 10, unit: 'minute' } } });
    const next = Date.parse(after.body.next_run_at);
    expect(next).toBeGreaterThanOrEqual(after.before + 600_000 - 1000);
    expect(next).toBeLessThanOrEqual(after.after + 600_000 + 1000);
  });
});
