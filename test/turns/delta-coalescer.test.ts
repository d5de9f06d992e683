/**
 * The delta coalescer on its own: joined deltas keep the exact text and the order against other
 * events, are written at most once per window or per 4 KiB, and stop at the per-turn event cap
 * while other events go on.
 */
import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '../../src/runtime/events.js';
import { coalesceDeltas } from '../../src/turns/delta-coalescer.js';

function recorder() {
  const events: TurnEvent[] = [];
  return { events, emit: async (e: TurnEvent) => void events.push(e) };
}

const delta = (text: string): TurnEvent => ({ type: 'message.delta', text });

describe('delta coalescing', () => {
  it('joins 10,000 small deltas into 4 KiB events with the same text, before the next event', async () => {
    const r = recorder();
    const emit = coalesceDeltas(r.emit, { windowMs: 10_000 });
    const text = 'abcdefg'.repeat(10_000);
    for (let i = 0; i < text.length; i += 7) await emit(delta(text.slice(i, i + 7)));
    await emit({ type: 'message.completed', text } as TurnEvent);
    const deltas = r.events.filter((e) => e.type === 'message.delta') as { text: string }[];
    expect(deltas.map((d) => d.text).join('')).toBe(text);
    expect(deltas.length).toBe(Math.ceil(text.length / 4102));
    expect(deltas.every((d) => d.text.length <= 4096 + 6)).toBe(true);
    expect(r.events[r.events.length - 1].type).toBe('message.completed');
  });

  it('writes a buffered delta after the window even when nothing else comes', async () => {
    const r = recorder();
    const emit = coalesceDeltas(r.emit, { windowMs: 30 });
    await emit(delta('hel'));
    await emit(delta('lo'));
    expect(r.events).toEqual([]);
    await new Promise((res) => setTimeout(res, 80));
    expect(r.events).toEqual([delta('hello')]);
  });

  it('keeps message and reasoning deltas apart and in order', async () => {
    const r = recorder();
    const emit = coalesceDeltas(r.emit, { windowMs: 10_000 });
    await emit({ type: 'reasoning.delta', text: 'thinking ' });
    await emit({ type: 'reasoning.delta', text: 'hard' });
    await emit(delta('an'));
    await emit(delta('swer'));
    await emit({ type: 'turn.completed' } as TurnEvent);
    expect(r.events.map((e) => [e.type, (e as { text?: string }).text])).toEqual([
      ['reasoning.delta', 'thinking hard'],
      ['message.delta', 'answer'],
      ['turn.completed', undefined],
    ]);
  });

  it('drops deltas once maxEvents were written, still writing every other event', async () => {
    const r = recorder();
    const emit = coalesceDeltas(r.emit, { windowMs: 10_000, maxChars: 1, maxEvents: 5 });
    for (let i = 0; i < 20; i++) await emit(delta(String(i % 10)));
    await emit({ type: 'message.completed', text: 'all' } as TurnEvent);
    await emit({ type: 'turn.completed' } as TurnEvent);
    expect(r.events.filter((e) => e.type === 'message.delta')).toHaveLength(5);
    expect(r.events.slice(-2).map((e) => e.type)).toEqual(['message.completed', 'turn.completed']);
  });
});
