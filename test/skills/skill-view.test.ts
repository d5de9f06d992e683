/**
 * skill_view through real turns: the scripted model (real openai SDK over loopback) reads skill
 * files under the path rules — `\` as `/`; `..`, `.`, empty or absolute segments refused; a
 * symbolic link out of the skill refused; skills not enabled refused — and the turn's
 * instructions carry the index of the enabled skills. Built-ins come from SKILLS_DIR (where a
 * symbolic link can exist: archives cannot carry one).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { skillMd, tarGz } from '../support/archives.js';

const builtins = mkdtempSync(path.join(os.tmpdir(), 'skills-builtin-'));
const outside = mkdtempSync(path.join(os.tmpdir(), 'skills-outside-'));
writeFileSync(path.join(outside, 'secret.txt'), 'host secret');
mkdirSync(path.join(builtins, 'guide', 'references'), { recursive: true });
writeFileSync(path.join(builtins, 'guide', 'SKILL.md'), skillMd('guide', 'How to write <good> & "clear" docs', '# Guide\n\nWrite clearly.\n', 'license: MIT\n'));
writeFileSync(path.join(builtins, 'guide', 'references', 'style.md'), 'Use short sentences.\n');
symlinkSync(path.join(outside, 'secret.txt'), path.join(builtins, 'guide', 'leak.txt'));
symlinkSync(outside, path.join(builtins, 'guide', 'outdir'));
mkdirSync(path.join(builtins, 'jobs-only'));
writeFileSync(path.join(builtins, 'jobs-only', 'SKILL.md'), skillMd('jobs-only', 'Only for background jobs', 'x', 'runtime: background_job\n'));
afterAll(() => {
  rmSync(builtins, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const harness = useScriptedService({ env: { SKILLS_DIR: builtins } });

async function turn(body: Record<string, unknown>) {
  const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'go', ...body }, timeoutMs: 30_000 });
  expect(r.status).toBe(200);
  return r;
}

describe('skill_view', () => {
  it('reads enabled skill files under the path rules and refuses the rest', async () => {
    await fetch(`${harness.svc.url}/v1/skills/other`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(tarGz([{ name: 'SKILL.md', data: skillMd('other', 'Another skill') }])) });
    const calls: [string, Record<string, string>][] = [
      ['default', { name: 'guide' }],
      ['backslash', { name: 'guide', file_path: 'references\\style.md' }],
      ['dotdot', { name: 'guide', file_path: 'references/../SKILL.md' }],
      ['dot', { name: 'guide', file_path: './SKILL.md' }],
      ['empty', { name: 'guide', file_path: 'references//style.md' }],
      ['absolute', { name: 'guide', file_path: '/etc/passwd' }],
      ['drive', { name: 'guide', file_path: 'C:\\x.txt' }],
      ['linkfile', { name: 'guide', file_path: 'leak.txt' }],
      ['linkdir', { name: 'guide', file_path: 'outdir/secret.txt' }],
      ['missing', { name: 'guide', file_path: 'references/none.md' }],
      ['notenabled', { name: 'other' }],
      ['unknown', { name: 'nope' }],
    ];
    harness.model.push({ output: calls.map(([id, args]) => functionCall('skill_view', args, { callId: id })) }, { output: [message('done')] });
    const r = await turn({ skills: ['guide', 'jobs-only'] });
    const started = r.events[0].json;
    expect(started.tools).toContain('skill_view');
    expect(started.unavailable.filter((u: any) => u.family === 'skills')).toEqual([{ family: 'skills', reason: 'skill jobs-only is for background jobs only (runtime: background_job)' }]);
    const out = Object.fromEntries(r.events.filter((e) => e.event === 'tool.completed').map((e) => [e.json.call_id, e.json.output]));
    expect(out.default).toBe('<skill name="guide" location="skill://enabled/guide/SKILL.md">\n# Guide\n\nWrite clearly.\n</skill>');
    expect(out.backslash).toBe('<skill name="guide" location="skill://enabled/guide/references/style.md">\nUse short sentences.\n</skill>');
    for (const id of ['dotdot', 'dot', 'empty', 'absolute', 'drive']) expect(out[id], id).toBe('Error: tool skill_view failed: invalid skill file path');
    expect(out.linkfile).toBe('Error: tool skill_view failed: skill path escapes skill root through a symbolic link');
    expect(out.linkdir).toBe('Error: tool skill_view failed: skill path escapes skill root through a symbolic link');
    expect(out.missing).toBe('Error: tool skill_view failed: skill guide has no file references/none.md');
    expect(out.notenabled).toBe('Error: tool skill_view failed: skill is not enabled for this turn: other');
    expect(out.unknown).toBe('Error: tool skill_view failed: skill is not enabled for this turn: nope');
    expect(JSON.stringify(r.events.map((e) => e.json))).not.toContain('host secret');

    // The model got the index of enabled skills (not the background-only one) in its instructions.
    const instructions = harness.model.requests.at(-1)!.body.instructions as string;
    expect(instructions).toContain('## Skills');
    expect(instructions).toContain('- guide: How to write <good> & "clear" docs');
    expect(instructions).not.toContain('jobs-only');
    expect(instructions).not.toContain('- other');
  });

  it('uses the agent\'s enabled skills when the turn names none, and offers nothing without skills', async () => {
    await api(harness.svc.url, 'PUT', '/v1/agents/writer/skills', { enabled: ['guide'] });
    harness.model.push({ output: [functionCall('skill_view', { name: 'guide', file_path: 'references/style.md' })] }, { output: [message('ok')] });
    const r = await turn({ agent_id: 'writer' });
    expect(r.events[0].json.tools).toContain('skill_view');
    expect(r.events.find((e) => e.event === 'tool.completed')!.json.output).toContain('Use short sentences.');

    harness.model.push({ output: [message('plain')] });
    const plain = await turn({ agent_id: 'nobody' });
    expect(plain.events[0].json.tools).not.toContain('skill_view');
    expect(plain.events[0].json.unavailable.filter((u: any) => u.family === 'skills')).toEqual([]);
    expect(harness.model.requests.at(-1)!.body.instructions ?? '').not.toContain('## Skills');
  });

  it('escapes the location attribute and refuses a turn naming an unknown skill with 400', async () => {
    const bad = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'x', skills: ['guide', 'ghost'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'unknown_skill', details: { unknown: ['ghost'] } });
    const { xmlAttr } = await import('../../src/tools/skills/skill-view.js');
    expect(xmlAttr(`a&b<c>"d"'e`)).toBe('a&amp;b&lt;c&gt;&quot;d&quot;&apos;e');
  });
});
