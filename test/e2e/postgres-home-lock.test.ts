/**
 * Two real service processes on one real Postgres sharing the agent homes (one `agents` folder,
 * as with a shared volume): a `command` of an agent running on one instance holds the agent's
 * home across instances (a Postgres advisory lock keyed by agent id), so a command of the same
 * agent on the other instance starts only after it ended — never beside it.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { describePostgres, freshSchema } from '../support/postgres.js';
import { routedEntries } from '../workflows/support.js';
import { freePort, spawnService, waitHealthy, type Child } from './support/child.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

describePostgres('the agent-home lock across two instances on one Postgres', () => {
  let model: ScriptedResponsesServer;
  const dirs: string[] = [];
  const children: Child[] = [];
  let agents: string;
  let instances: { url: string; child: Child }[];

  async function startInstance(env: Record<string, string>, name: string): Promise<{ url: string; child: Child }> {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), `pg-home-lock-${name}-`));
    dirs.push(dataDir);
    symlinkSync(agents, path.join(dataDir, 'agents')); // one shared agents folder, like a shared volume
    const child = spawnService({ ...env, DATA_DIR: dataDir, PORT: String(port) });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(url, child, 90_000);
    return { url, child };
  }

  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    const { url } = await freshSchema();
    const shared = mkdtempSync(path.join(os.tmpdir(), 'pg-home-lock-agents-'));
    dirs.push(shared);
    chmodSync(shared, 0o711); // the sandbox user (when the service runs as root) must reach the homes
    agents = path.join(shared, 'agents');
    mkdirSync(agents);
    const env = {
      DATABASE_URL: url,
      STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters',
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'k',
      MODEL: 'm',
      MODEL_MAX_RETRIES: '0',
      LOG_LEVEL: 'warn',
      // One turn at a time per instance: the second turn has to run on the other instance.
      MAX_CONCURRENT_TURNS: '1',
    };
    instances = await Promise.all([startInstance(env, 'a'), startInstance(env, 'b')]);
  }, 200_000);

  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await model?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const running = async (x: { url: string }) => (await api(x.url, 'GET', '/readyz')).body.turns.running as number;
  const log = () => {
    try {
      return readFileSync(path.join(agents, 'shared', 'home', 'order.log'), 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; log ${JSON.stringify(log())}\n${children.map((c) => c.output()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("runs a command of one agent on the second instance only after the first instance's command in the same home ended", async () => {
    model.push(
      ...routedEntries({
        'first command': [
          { output: [functionCall('command', { command: 'echo start-1 >> order.log; sleep 12; echo end-1 >> order.log' })] },
          { output: [message('first done')] },
        ],
        'second command': [{ output: [functionCall('command', { command: 'echo start-2 >> order.log; echo end-2 >> order.log' })] }, { output: [message('second done')] }],
      }),
    );
    const [a, b] = instances;
    const first = await api(a.url, 'POST', '/v1/turns', { input: 'first command', agent_id: 'shared', tools: ['computer'] });
    expect(first.status).toBe(202);
    await until('the first command to start', () => log().includes('start-1')).catch(async (err: Error) => {
      const events = await readSse(`${a.url}/v1/turns/${first.body.id}/events`, { timeoutMs: 5_000 }).catch(() => undefined);
      throw new Error(`${err.message}\nfirst turn: ${JSON.stringify(events?.events.map((e) => e.data))}`);
    });
    const second = await api(b.url, 'POST', '/v1/turns', { input: 'second command', agent_id: 'shared', tools: ['computer'] });
    expect(second.status).toBe(202);
    // Both instances run one turn each: the second turn is running on the other instance, waiting for the home.
    await until('both instances to run a turn', async () => (await running(a)) === 1 && (await running(b)) === 1);
    const [one, two] = await Promise.all([
      readSse(`${b.url}/v1/turns/${first.body.id}/events`, { timeoutMs: 90_000 }),
      readSse(`${a.url}/v1/turns/${second.body.id}/events`, { timeoutMs: 90_000 }),
    ]);
    expect(one.events.at(-1)!.event).toBe('turn.completed');
    expect(two.events.at(-1)!.event).toBe('turn.completed');
    expect(log()).toEqual(['start-1', 'end-1', 'start-2', 'end-2']);
  }, 200_000);
});
