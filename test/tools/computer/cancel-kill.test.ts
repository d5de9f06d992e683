/**
 * Cancelling a turn while its command runs leaves nothing running: bwrap and every process of the
 * command — ones that ignore SIGTERM and ones that left its session with setsid — are gone within
 * the kill grace (SIGTERM → SIGKILL) plus one second. Processes are found by a marker in their
 * command line. Through the real API: a scripted model calls `command`, the client cancels.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KILL_GRACE_MS } from '../../../src/tools/computer/tools/command.js';
import { functionCall, message } from '../../support/scripted-responses-server.js';
import { api, useScriptedService } from '../../e2e/support/service.js';
import { waitFor } from './support.js';

const harness = useScriptedService();

/** Live host processes whose command line contains `marker`. */
function withMarker(marker: string): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${e}/cmdline`, 'latin1').includes(marker)) continue;
      if (!/\) Z /.test(readFileSync(`/proc/${e}/stat`, 'latin1'))) found.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('cancelling a turn during a command', () => {
  it('ends bwrap and all of the command processes within the kill grace + 1 s', async () => {
    const marker = `cancel-${randomUUID()}`;
    // Each shell has more to do after its sleep, so none replaces itself (exec) with the sleep and
    // every one keeps the marker in its command line.
    const command = `trap "" TERM; sh -c 'trap "" TERM; sleep 300; :' ${marker}-a & setsid sh -c 'sleep 300; :' ${marker}-b & sleep 300; wait # ${marker}`;
    harness.model.push({ output: [functionCall('command', { command, timeout: 600 })] }, { output: [message('unused')] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'go', tools: ['computer'] });
    expect(created.status).toBe(202);
    // bwrap, the shell and both children carry the marker in their command lines.
    expect(await waitFor(() => withMarker(`${marker}-b`).length > 0 && withMarker(`${marker}-a`).length > 0, 15_000)).toBe(true);
    const t0 = Date.now();
    const cancel = await api(harness.svc.url, 'POST', `/v1/turns/${created.body.id}/cancel`);
    expect(cancel.status).toBeLessThan(300);
    expect(await waitFor(() => withMarker(marker).length === 0, KILL_GRACE_MS + 1000, 20)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(KILL_GRACE_MS + 1500);
    expect(await waitFor(async () => (await api(harness.svc.url, 'GET', `/v1/turns/${created.body.id}`)).body.status === 'cancelled', 5000)).toBe(true);
  }, 60_000);
});
