/**
 * Tool outputs and errors show `~`-relative paths, never the host path of the agent home: a real
 * turn runs commands in the real sandbox that print their working folder and fail on a path in
 * the home, and makes a file tool fail; no event of the turn, and nothing the model got back,
 * contains the service's data folder. Links a command makes to host files, existing or not, are
 * refused in the same words, so a turn cannot probe the host's files through them.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../../support/scripted-responses-server.js';
import { useScriptedService } from '../../e2e/support/service.js';
import { readSse } from '../../e2e/support/sse-client.js';
import { hostPathFilter } from '../../../src/tools/computer/host-paths.js';

const harness = useScriptedService();

describe('host paths in tool results', () => {
  it('reads ~ for the home in command output, progress, errors and what the model sees', { timeout: 60_000 }, async () => {
    let modelSaw = '';
    harness.model.push(
      { output: [functionCall('write_file', { path: 'work/a.txt', content: 'x\n' })] },
      { output: [functionCall('command', { command: 'pwd; echo "home=$HOME"; cat "$HOME/work/missing.txt"', workdir: 'work' })] },
      { output: [functionCall('write_file', { path: 'work/a.txt/inside.txt', content: 'y' })] },
      (body: ResponsesRequestBody) => {
        modelSaw = JSON.stringify(body.input);
        return { output: [message('done')] };
      },
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'go', agent_id: 'paths-agent', tools: ['computer'] }, timeoutMs: 50_000 });
    expect(r.status).toBe(200);
    const completed = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json);
    expect(completed).toHaveLength(3);
    const command = completed[1].output as string;
    expect(command).toContain('\n~/work\n');
    expect(command).toContain('home=~\n');
    expect(command).toContain('cat: ~/work/missing.txt: No such file or directory');
    const raw = JSON.stringify(r.events.map((e) => e.json));
    expect(raw).not.toContain(harness.svc.dataDir);
    expect(modelSaw).not.toContain(harness.svc.dataDir);
    expect(modelSaw).toContain('~/work');
  });

  it('answers links a command made to an existing and a missing host file with the same refusal, naming neither', { timeout: 60_000 }, async () => {
    const present = path.join(harness.svc.dataDir, 'host-only.txt');
    writeFileSync(present, 'HOST ONLY\n');
    const absent = path.join(harness.svc.dataDir, 'not-there.txt');
    let modelGot: string[] = [];
    harness.model.push(
      // In the sandbox neither target is visible; the links' text still names the host paths.
      { output: [functionCall('command', { command: `ln -s ${JSON.stringify(present)} present && ln -s ${JSON.stringify(absent)} absent && ln -s present chained && echo linked` })] },
      { output: [functionCall('read_file', { path: 'present' })] },
      { output: [functionCall('read_file', { path: 'absent' })] },
      { output: [functionCall('read_file', { path: 'chained' })] },
      (body: ResponsesRequestBody) => {
        modelGot = (body.input as { type?: string; output?: unknown }[]).filter((i) => i.type === 'function_call_output').map((i) => JSON.stringify(i.output));
        return { output: [message('done')] };
      },
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'probe', agent_id: 'probe-agent', tools: ['computer'] }, timeoutMs: 50_000 });
    expect(r.status).toBe(200);
    const outputs = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json.output as string);
    expect(outputs).toHaveLength(4);
    expect(outputs[0]).toMatch(/^exit_code=0 [\s\S]*linked/);
    const [viaPresent, viaAbsent, viaChain] = outputs.slice(1).map((o, i) => o.split(['present', 'absent', 'chained'][i]).join('<path>'));
    expect(viaAbsent).toBe(viaPresent);
    expect(viaChain).toBe(viaPresent);
    expect(viaPresent).toMatch(/^Error: .*<path> leads outside the agent's home \(directly or through a symbolic link\); file tools only work inside the home/);
    // What the tools answered (the command's own text names the targets, as the model wrote it).
    expect(modelGot).toHaveLength(4);
    for (const seen of [...outputs, ...modelGot]) {
      expect(seen).not.toContain(harness.svc.dataDir);
      expect(seen).not.toContain('HOST ONLY');
    }
  });

  it('replaces only whole path components of the home', () => {
    const f = hostPathFilter('/srv/data/agents/a/home');
    expect(f('/srv/data/agents/a/home/x.txt and /srv/data/agents/a/home')).toBe('~/x.txt and ~');
    expect(f('/srv/data/agents/a/home2/x')).toBe('/srv/data/agents/a/home2/x');
    expect(f("open '/srv/data/agents/a/home/a.txt/b'")).toBe("open '~/a.txt/b'");
  });
});
