/**
 * Two real service processes on one real Postgres sharing the agent homes (one `agents` folder,
 * as with a shared volume): a `command` of an agent running on one instance holds the agent's
 * home across instances (a Postgres advisory lock keyed by agent id), so a command of the same
 * agent on the other instance starts only after it ended — never beside it.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { describePostgres } from '../support/postgres.js';
import { routedEntries } from '../workflows/support.js';
import { usePgInstances, type PgInstance } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

describePostgres('the agent-home lock across two instances on one Postgres', () => {
  // One turn at a time per instance: the second turn has to run on the other instance.
  const pg = usePgInstances({ name: 'home-lock', env: { MAX_CONCURRENT_TURNS: '1' } });
  const children = pg.children;
  let agents: string;
  let instances: PgInstance[];

  beforeAll(async () => {
    const shared = pg.tempDir('pg-home-lock-agents-');
    chmodSync(shared, 0o711); // the sandbox user (when the service runs as root) must reach the homes
    agents = path.join(shared, 'agents');
    mkdirSync(agents);
    // One shared agents folder, like a shared volume.
    const prepare = (dataDir: string) => symlinkSync(agents, path.join(dataDir, 'agents'));
    instances = await Promise.all([pg.start('a', { prepare }), pg.start('b', { prepare })]);
  }, 200_000);

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
    pg.model.push(
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
