/**
 * A command's output streams while it runs: a real turn runs a slow command in the real
 * bubblewrap sandbox and the SSE stream carries its output as `tool.progress` events before
 * `tool.completed` — at most 4 per second, at most 2 KiB each, without ANSI escape sequences.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../../support/scripted-responses-server.js';
import { useScriptedService } from '../../e2e/support/service.js';
import { readSse } from '../../e2e/support/sse-client.js';

const harness = useScriptedService();

describe('live output of a running command', () => {
  it('streams the output as tool.progress events before tool.completed', { timeout: 60_000 }, async () => {
    // Each step's line comes after its 3000-byte burst, then a pause longer than the event interval:
    // the line is the newest text of whichever event carries it, so no cut can hide it.
    const command = 'for i in 1 2 3 4 5 6; do head -c 3000 /dev/zero | tr "\\0" x; echo; printf "\\033[1;32mstep %s\\033[0m\\n" $i; sleep 0.4; done';
    harness.model.push({ output: [functionCall('command', { command })] }, { output: [message('done')] });
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'run it', tools: ['computer'] }, timeoutMs: 50_000 });
    expect(r.status).toBe(200);
    const types = r.events.map((e) => e.event);
    const started = types.indexOf('tool.started');
    const completed = types.indexOf('tool.completed');
    const progress = r.events.filter((e) => e.event === 'tool.progress').map((e) => e.json);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const positions = r.events.flatMap((e, i) => (e.event === 'tool.progress' ? [i] : []));
    expect(Math.min(...positions)).toBeGreaterThan(started);
    expect(Math.max(...positions)).toBeLessThan(completed);
    for (const p of progress) {
      expect(p.data.kind).toBe('output');
      expect(Buffer.byteLength(p.message)).toBeLessThanOrEqual(2048);
      expect(p.message).not.toContain('\x1b');
    }
    // Each event shows the newest 2 KiB since the one before; every step line is the newest text when
    // its event is cut, so all six show, in order.
    const shown = progress.map((p) => p.message).join('');
    const steps = [...shown.matchAll(/step (\d)/g)].map((m) => Number(m[1]));
    expect([...new Set(steps)]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    // 3000 bytes arrive at once: that event shows the newest 2 KiB and counts the rest.
    expect(progress.some((p) => p.data.skipped_chars > 0 && /^x+/.test(p.message))).toBe(true);
    // Rate: at most 4 per second over the call's run time (stored event times).
    const runMs = Date.parse(r.events[completed].json.created_at) - Date.parse(r.events[started].json.created_at);
    expect(runMs).toBeGreaterThan(2000);
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(runMs / 250) + 1);
    expect(r.events[completed].json.output).toContain('step 6');
  });
});
