/**
 * Lease fencing across instances: instance A's connection to Postgres HANGS (a proxy holds every
 * byte, no reset) for longer than TURN_LEASE_MS while its turn streams. Instance B takes the turn
 * over (the lease ran out) and finishes it. When the connection comes back, what A had sent meanwhile
 * reaches the database — its writes for the turn are refused, since A no longer holds the lease:
 * the turn's log ends with its terminal event, with gapless ids, and a client resuming late gets the
 * terminal event and a closed stream. A's run stops. Two real service processes, one real Postgres.
 */
import { afterAll, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { describePostgres, freshSchema, queryOnce } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { usePgInstances } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

const LEASE_MS = 1000;

describePostgres('a database connection that hangs longer than the turn lease while the turn streams', () => {
  let url = '';
  let proxy: TcpProxy | undefined;
  const instances = usePgInstances({
    name: 'hung',
    env: { TURN_LEASE_MS: String(LEASE_MS) },
    databaseUrl: async () => {
      url = (await freshSchema()).url;
      const u = new URL(url);
      proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
      return url;
    },
  });
  afterAll(async () => {
    proxy?.resume();
    await proxy?.close();
  });

  async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok().catch(() => false))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${instances.children.map((c) => c.output()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const sql = <R extends object>(text: string, params: unknown[]) => queryOnce<R>(url, text, params);

  it('refuses the late writes of the instance that lost the turn: nothing after the terminal event, gapless ids, streams close', async () => {
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy!.port);
    const a = await instances.start('a', { env: { DATABASE_URL: viaProxy.toString(), LOG_LEVEL: 'info' } });
    // A's answer streams for ~12 s (120 deltas, 100 ms apart); B's run, resumed, gets its answer at once.
    const chunks = Array.from({ length: 120 }, (_, i) => `w${i} `);
    instances.model.push({ output: [message(chunks.join(''), { chunks })], delayMs: 100 }, { output: [message('answered by B')] });
    const created = await api(a.url, 'POST', '/v1/turns', { input: 'stream slowly' });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    const types = async () => (await sql<{ type: string }>('SELECT type FROM event_log WHERE stream_id = $1 ORDER BY seq', [id])).map((r) => r.type);
    await until('A to stream the answer', async () => (await types()).includes('message.delta'));
    const b = await instances.start('b');
    await until('A to stream more', async () => (await types()).filter((t) => t === 'message.delta').length >= 2);

    proxy!.hang();
    // The lease runs out; B claims the turn, resumes it and finishes it (A's writes wait in the proxy).
    await until('B to finish the turn', async () => (await api(b.url, 'GET', `/v1/turns/${id}`)).body.status === 'completed');
    proxy!.resume();

    // A's held statements reach the database now; its run learns it lost the turn — from a refused
    // write or from its heartbeat, whichever is answered first — logs it and stops.
    await until('A to stop its run', async () => a.child.output().includes("no longer holds the turn's lease"), 15_000);
    await new Promise((r) => setTimeout(r, 1500)); // anything else A still had to say arrives meanwhile

    const rows = await sql<{ seq: number; type: string }>('SELECT seq, type FROM event_log WHERE stream_id = $1 ORDER BY seq', [id]);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.at(-1)!.type).toBe('turn.completed');
    expect(rows.filter((r) => r.type.startsWith('turn.') && ['turn.completed', 'turn.failed', 'turn.cancelled'].includes(r.type))).toHaveLength(1);
    expect(rows.map((r) => r.type)).toContain('turn.resumed');
    const terminalSeq = rows.at(-1)!.seq;
    expect((await api(b.url, 'GET', `/v1/turns/${id}`)).body).toMatchObject({ status: 'completed', output_text: 'answered by B' });

    // Late-resuming clients, on either instance: the terminal event (or nothing after it), then the end of the stream.
    for (const base of [a.url, b.url]) {
      const before = await readSse(`${base}/v1/turns/${id}/events`, { headers: { 'last-event-id': String(terminalSeq - 1) }, timeoutMs: 5000 });
      expect(before.serverClosed).toBe(true);
      expect(before.events.map((e) => [Number(e.id), e.event])).toEqual([[terminalSeq, 'turn.completed']]);
      const after = await readSse(`${base}/v1/turns/${id}/events`, { headers: { 'last-event-id': String(terminalSeq) }, timeoutMs: 5000 });
      expect(after.serverClosed).toBe(true);
      expect(after.events).toEqual([]);
    }
    // A's run stopped on the refusal: the model was asked twice (A, then B's resumed run), not again.
    expect(a.child.output()).toContain("no longer holds the turn's lease");
    expect(instances.model.requests).toHaveLength(2);
  }, 120_000);
});
