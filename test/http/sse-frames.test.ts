import { describe, expect, it } from 'vitest';
import { sseFrame } from '../../src/http/sse-frames.js';
import type { LoggedEvent } from '../../src/store/event-log.js';

type Ev = { type: string; text?: string };
const data = (l: LoggedEvent<Ev>) => ({ ...l.event, seq: l.seq, turn_id: l.streamId });
const other = (l: LoggedEvent<Ev>) => ({ ...l.event, seq: l.seq, workflow_id: l.streamId });
const logged = (seq: number, event: Ev): LoggedEvent<Ev> => ({ streamId: 't1', seq, createdAt: '2026-01-01T00:00:00.000Z', event });

describe('SSE frames', () => {
  it('frames an event as id (the seq as a string, also 0), event type and one data line of JSON', () => {
    expect(sseFrame(logged(7, { type: 'message.delta', text: 'hi' }), data).toString()).toBe(
      'id: 7\nevent: message.delta\ndata: {"type":"message.delta","text":"hi","seq":7,"turn_id":"t1"}\n\n',
    );
    expect(sseFrame(logged(0, { type: 'x' }), data).toString()).toMatch(/^id: 0\n/);
  });

  it('keeps text with line breaks and SSE-looking lines inside the one data line', () => {
    const frame = sseFrame(logged(1, { type: 'message.delta', text: 'a\r\nevent: fake\n\ndata: x' }), data).toString();
    expect(frame.split('\n').filter((l) => l !== '')).toHaveLength(3);
    expect(JSON.parse(frame.split('\n')[2].slice('data: '.length)).text).toBe('a\r\nevent: fake\n\ndata: x');
  });

  it('serializes an event once: every subscriber writes the same bytes', () => {
    const e = logged(3, { type: 'tool.completed', text: 'ok' });
    const first = sseFrame(e, data);
    expect(sseFrame(e, data)).toBe(first); // the same Buffer, not an equal copy
    expect(sseFrame(logged(3, { type: 'tool.completed', text: 'ok' }), data)).not.toBe(first); // a replayed copy gets its own
    expect(sseFrame(e, other).toString()).toContain('"workflow_id":"t1"'); // another stream shape, another frame
  });
});
