/**
 * Which skills and MCP servers a turn gets (src/skills/turn-skills.ts) from a real SkillRegistry
 * (SQLite in memory, skill folders on disk): the turn's own list replaces the agent's; deleted
 * and background-only skills are reported; an http server is withheld without network; at most
 * 32 servers; built-ins cannot be replaced or deleted over the API.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TurnContext } from '../../src/assembly/context.js';
import { loadConfig } from '../../src/config.js';
import { SkillRegistry } from '../../src/skills/skill-registry.js';
import { turnSkills } from '../../src/skills/turn-skills.js';
import { openDatabase } from '../../src/store/database.js';
import { skillMd, tarGz } from '../support/archives.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'turn-skills-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function builtin(dir: string, name: string, manifest?: string, extra = '') {
  mkdirSync(path.join(dir, name, 'agents'), { recursive: true });
  writeFileSync(path.join(dir, name, 'SKILL.md'), skillMd(name, `The ${name} skill`, 'x', extra));
  if (manifest) writeFileSync(path.join(dir, name, 'agents', 'openai.yaml'), manifest);
}

const http = (name: string) => `dependencies:\n  tools:\n    - {type: mcp, value: ${name}, transport: streamable_http, url: "http://127.0.0.1:9/mcp"}\n`;
const stdio = (names: string[]) => `dependencies:\n  tools:\n${names.map((n) => `    - {type: mcp, value: ${n}, transport: stdio, command: "true"}\n`).join('')}`;

async function setup() {
  const builtins = path.join(root, 'builtins');
  builtin(builtins, 'web-api', http('api'));
  builtin(builtins, 'many', stdio(Array.from({ length: 40 }, (_, i) => `s${String(i).padStart(2, '0')}`)));
  builtin(builtins, 'jobs', undefined, 'runtime: background_job\n');
  builtin(builtins, 'Bad_Name');
  builtin(builtins, 'broken');
  writeFileSync(path.join(builtins, 'broken', 'SKILL.md'), 'no frontmatter');
  builtin(builtins, 'renamed');
  writeFileSync(path.join(builtins, 'renamed', 'SKILL.md'), skillMd('other', 'x'));
  const warnings: string[] = [];
  const registry = new SkillRegistry({ db: openDatabase(':memory:'), installDir: path.join(root, 'installed'), builtinsDir: builtins, log: { warn: (o) => warnings.push(JSON.stringify(o)) } });
  await registry.load();
  return { registry, warnings };
}

function ctx(registry: SkillRegistry, o: { skills?: string[]; network?: 'on' | 'off'; agentId?: string }): TurnContext {
  const config = loadConfig({ DATA_DIR: root, COMPUTER_NETWORK: o.network ?? 'off' });
  return { turnId: 't', agentId: o.agentId ?? 'a', kind: 'main', skills: o.skills, config, services: { skills: registry } } as unknown as TurnContext;
}

describe('the skills of a turn', () => {
  it('reads valid built-ins only, and refuses to replace or delete them', async () => {
    const { registry, warnings } = await setup();
    expect(registry.list().map((s) => [s.name, s.source])).toEqual([['jobs', 'builtin'], ['many', 'builtin'], ['web-api', 'builtin']]);
    expect(warnings.some((w) => w.includes('broken'))).toBe(true);
    // A folder whose SKILL.md names another skill: the warning says which two names and what to change.
    expect(warnings).toContainEqual(
      expect.stringContaining(
        JSON.stringify('SKILL.md frontmatter name "other" does not match the skill name "renamed" (its folder\'s name): change SKILL.md\'s name to "renamed", or rename the folder to "other"').slice(1, -1),
      ),
    );
    await expect(registry.install('web-api', tarGz([{ name: 'SKILL.md', data: skillMd('web-api', 'mine') }]), 'application/gzip')).rejects.toMatchObject({ status: 409, code: 'skill_builtin' });
    await expect(registry.remove('many')).rejects.toMatchObject({ status: 409, code: 'skill_builtin' });
  });

  it('withholds an http server without network, caps servers at 32, and reports background-only and deleted skills', async () => {
    const { registry } = await setup();
    const off = await turnSkills(ctx(registry, { skills: ['web-api'] }));
    expect(off.skills.map((s) => s.name)).toEqual(['web-api']);
    expect(off.servers).toEqual([]);
    expect(off.problems).toEqual(['MCP server "api" (streamable_http, skill web-api) is not reachable: commands have no network (COMPUTER_NETWORK=off); set COMPUTER_NETWORK=on to use it']);
    expect((await turnSkills(ctx(registry, { skills: ['web-api'], network: 'on' }))).servers.map((s) => s.decl.value)).toEqual(['api']);

    const many = await turnSkills(ctx(registry, { skills: ['many'] }));
    expect(many.servers).toHaveLength(32);
    expect(many.problems).toHaveLength(8);
    expect(many.problems[0]).toBe('MCP server "s32" is withheld: at most 32 MCP servers per turn');

    await registry.setEnabled('agent-x', ['jobs', 'web-api']);
    const fromAgent = await turnSkills(ctx(registry, { agentId: 'agent-x', network: 'on' }));
    expect(fromAgent.skills.map((s) => s.name)).toEqual(['web-api']);
    expect(fromAgent.problems).toEqual(['skill jobs is for background jobs only (runtime: background_job)']);
    // The turn's own list replaces the agent's.
    expect((await turnSkills(ctx(registry, { agentId: 'agent-x', skills: [] }))).skills).toEqual([]);

    await registry.install('temp', tarGz([{ name: 'SKILL.md', data: skillMd('temp', 'short-lived') }]), 'application/gzip');
    await registry.setEnabled('agent-y', ['temp']);
    await registry.remove('temp');
    // The delete took it out of the agent's list, so the agent's turns no longer look for it…
    expect(await registry.enabledFor('agent-y')).toEqual([]);
    expect((await turnSkills(ctx(registry, { agentId: 'agent-y' }))).problems).toEqual([]);
    // …but a turn (or job) that named it before the delete reports it.
    expect((await turnSkills(ctx(registry, { agentId: 'agent-y', skills: ['temp'] }))).problems).toEqual(['skill temp is enabled for agent agent-y but not installed']);
  });
});
