/**
 * Tool outputs and errors show `~`-relative paths, never the host path of the agent home: a real
 * turn runs commands in the real sandbox that print their working folder and fail on a path in
 * the home, and makes a file tool fail; no event of the turn, and nothing the model got back,
 * contains the service's data folder.
 */
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

  it('replaces only whole path components of the home', () => {
    const f = hostPathFilter('/srv/data/agents/a/home');
    expect(f('/srv/data/agents/a/home/x.txt and /srv/data/agents/a/home')).toBe('~/x.txt and ~');
    expect(f('/srv/data/agents/a/home2/x')).toBe('/srv/data/agents/a/home2/x');
    expect(f("open '/srv/data/agents/a/home/a.txt/b'")).toBe("open '~/a.txt/b'");
  });
});
