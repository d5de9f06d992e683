/**
 * LiveOutput (src/tools/computer/live-output.ts): output becomes throttled `tool.progress`
 * payloads — at most one per interval, at most maxBytes each (the newest text, with the skipped
 * count), secrets scrubbed even when split across chunks.
 */
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../src/skills/secrets.js';
import type { ToolProgress } from '../../../src/runtime/tool.js';
import { LiveOutput, utf8Tail } from '../../../src/tools/computer/live-output.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function collector() {
  const events: { at: number; p: ToolProgress }[] = [];
  return { events, emit: (p: ToolProgress) => events.push({ at: performance.now(), p }) };
}

describe('live command output', () => {
  it('sends at most one event per interval however often output arrives', async () => {
    const c = collector();
    const live = new LiveOutput({ emit: c.emit, intervalMs: 100 });
    const start = performance.now();
    while (performance.now() - start < 550) {
      live.write('tick\n');
      await sleep(5);
    }
    live.finish();
    expect(c.events.length).toBeGreaterThanOrEqual(3);
    expect(c.events.length).toBeLessThanOrEqual(7);
    for (let i = 1; i < c.events.length; i++) expect(c.events[i].at - c.events[i - 1].at).toBeGreaterThanOrEqual(95);
    const text = c.events.map((e) => e.p.message).join('');
    expect(text).toMatch(/^(tick\n)+$/);
    expect(c.events.every((e) => e.p.data?.kind === 'output')).toBe(true);
  });

  it('keeps each event within maxBytes, showing the newest text and counting what it skipped', async () => {
    const c = collector();
    const live = new LiveOutput({ emit: c.emit, intervalMs: 50, maxBytes: 2048 });
    const big = `${'a'.repeat(5000)}${'é'.repeat(1500)}END`;
    live.write(big);
    await sleep(120);
    live.finish();
    expect(c.events).toHaveLength(1);
    const { message, data } = c.events[0].p;
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(2048);
    expect(message.endsWith('END')).toBe(true);
    expect(data).toEqual({ kind: 'output', skipped_chars: big.length - message.length });
  });

  it('never shows a secret split across two chunks of output', async () => {
    const secrets = new Map([['API_TOKEN', 'tok-1234567890']]);
    const c = collector();
    const live = new LiveOutput({ emit: c.emit, intervalMs: 30, scrub: (t) => redactSecrets(t, secrets), holdBack: 'tok-1234567890'.length - 1 });
    live.write('token is tok-12345');
    await sleep(80);
    live.write('67890 done\n');
    await sleep(80);
    live.finish();
    const text = c.events.map((e) => e.p.message).join('');
    expect(text).toBe('token is [redacted:API_TOKEN] done\n');
    expect(c.events.some((e) => e.p.message.includes('tok-1'))).toBe(false);
  });

  it('sends the rest at the end when the rate allows, and nothing after finish', async () => {
    const c = collector();
    const live = new LiveOutput({ emit: c.emit, intervalMs: 20 });
    live.write('last line\n');
    live.finish();
    live.write('after the end\n');
    await sleep(50);
    expect(c.events.map((e) => e.p.message)).toEqual(['last line\n']);
  });

  it('cuts on code points, never inside a character', () => {
    expect(utf8Tail('x😀😀', 5)).toBe('😀');
    expect(utf8Tail('abc', 10)).toBe('abc');
  });
});
