/**
 * Reply attachments shared by real service processes on one real Postgres: a turn run by
 * instance A attaches a file; instance B — started after the turn, its own DATA_DIR never holding
 * the file — serves the download (with the bearer token and with the turn's stream token A
 * issued), also once A is gone.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describePostgres } from '../support/postgres.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { usePgInstances } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

const TOKEN = 'test-token-of-shared-attachments';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describePostgres('reply attachments shared by two instances on one Postgres', () => {
  const pg = usePgInstances({ name: 'attach', env: { AUTH_TOKENS: TOKEN } });

  it('stores an attachment through A and downloads it from B', async () => {
    let dirA = '';
    let dirB = '';
    const a = await pg.start('a', { prepare: (d) => (dirA = d) });
    const content = 'Quarterly report — ünïcode\nline 2\n';
    pg.model.push(
      { output: [functionCall('write_file', { path: 'outbox/report.txt', content })] },
      { output: [functionCall('reply_attachment', { path: 'outbox/report.txt', name: 'Report.txt' }, { callId: 'att' })] },
      { output: [message('here it is')] },
    );
    const r = await readSse(`${a.url}/v1/turns`, { method: 'POST', headers: AUTH, body: { input: 'make a report', tools: ['computer'] }, timeoutMs: 60_000 });
    expect(r.events.at(-1)!.event).toBe('turn.completed');
    const turnId = r.events[0].json.turn_id as string;
    const ev = r.events.find((e) => e.event === 'presentation')!.json.event;
    expect(ev).toMatchObject({ type: 'attachment', name: 'Report.txt', size: Buffer.byteLength(content) });

    const b = await pg.start('b', { prepare: (d) => (dirB = d) });
    const fromB = await fetch(b.url + ev.url, { headers: AUTH });
    expect(fromB.status).toBe(200);
    expect(await fromB.text()).toBe(content);
    expect(fromB.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(fromB.headers.get('content-length')).toBe(String(Buffer.byteLength(content)));
    expect(fromB.headers.get('content-disposition')).toBe(`attachment; filename="Report.txt"; filename*=UTF-8''Report.txt`);

    // The turn's stream token, issued by A, opens it on B once A is gone; neither DATA_DIR holds it.
    const turn = await api(a.url, 'GET', `/v1/turns/${turnId}`, undefined, AUTH);
    const token = new URL(turn.body.links.events, a.url).searchParams.get('stream_token')!;
    a.child.proc.kill('SIGTERM');
    expect(await a.child.exited).toBe(0);
    const viaToken = await fetch(`${b.url}${ev.url}?stream_token=${encodeURIComponent(token)}`);
    expect(viaToken.status).toBe(200);
    expect(await viaToken.text()).toBe(content);
    expect(existsSync(path.join(dirA, 'attachments'))).toBe(false);
    expect(existsSync(path.join(dirB, 'attachments'))).toBe(false);
    const missing = await api(b.url, 'GET', `/v1/turns/${turnId}/attachments/att_${'0'.repeat(32)}`, undefined, AUTH);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('attachment_not_found');
  }, 180_000);
});
