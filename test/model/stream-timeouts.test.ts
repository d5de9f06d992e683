/**
 * The time-limit decorator of src/model/stream-timeouts.ts around a fake port: a request that
 * stalls after only `response.started` is sent again without the consumer seeing that first
 * `response.started` (one per response it gets), and a held-back `response.started` is still
 * delivered when the request is not sent again.
 */
import { describe, expect, it } from 'vitest';
import type { ModelPort, ModelRequest, ModelStreamEvent } from '../../src/model/port.js';
import { withStreamTimeouts } from '../../src/model/stream-timeouts.js';

const request: ModelRequest = { model: 'm', input: [], tools: [], toolChoice: 'auto' };

/** A port answering attempt k with `attempts[k]`: its events, then a stall (until aborted) or the end. */
function fakePort(attempts: { events: ModelStreamEvent[]; stall?: boolean }[]): ModelPort & { calls: number } {
  const port = {
    calls: 0,
    async *stream(_r: ModelRequest, signal: AbortSignal) {
      const a = attempts[port.calls++];
      for (const e of a.events) yield e;
      if (a.stall) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
  return port;
}

async function collect(port: ModelPort, retries: number): Promise<{ events: ModelStreamEvent[]; error?: string }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const e of withStreamTimeouts(port, { idleMs: 100, requestMs: 5000, retries }).stream(request, new AbortController().signal)) events.push(e);
    return { events };
  } catch (err) {
    return { events, error: (err as Error).message };
  }
}

const done: ModelStreamEvent = { type: 'response.done', status: 'completed' };

describe('withStreamTimeouts and response.started', () => {
  it('sends again a request that stalled after response.started, and passes on only the retry\'s', async () => {
    const port = fakePort([
      { events: [{ type: 'response.started', response_id: 'resp_1' }], stall: true },
      { events: [{ type: 'response.started', response_id: 'resp_2' }, { type: 'text.delta', text: 'hi' }, done] },
    ]);
    const { events, error } = await collect(port, 1);
    expect(error).toBeUndefined();
    expect(port.calls).toBe(2);
    expect(events).toEqual([{ type: 'response.started', response_id: 'resp_2' }, { type: 'text.delta', text: 'hi' }, done]);
  });

  it('passes on the held response.started before model_timeout when the retries are spent', async () => {
    const port = fakePort([{ events: [{ type: 'response.started', response_id: 'resp_1' }], stall: true }]);
    const { events, error } = await collect(port, 0);
    expect(error).toBe('the model sent nothing for 0.1 s (MODEL_IDLE_TIMEOUT_MS)');
    expect(events).toEqual([{ type: 'response.started', response_id: 'resp_1' }]);
  });

  it('does not send again a request that stalled after a delta', async () => {
    const port = fakePort([
      { events: [{ type: 'response.started', response_id: 'resp_1' }, { type: 'text.delta', text: 'half' }], stall: true },
      { events: [done] },
    ]);
    const { events, error } = await collect(port, 1);
    expect(error).toBe('the model sent nothing for 0.1 s (MODEL_IDLE_TIMEOUT_MS)');
    expect(port.calls).toBe(1);
    expect(events).toEqual([{ type: 'response.started', response_id: 'resp_1' }, { type: 'text.delta', text: 'half' }]);
  });

  it('passes on a response.started that ends its stream', async () => {
    const { events } = await collect(fakePort([{ events: [{ type: 'response.started', response_id: 'r' }] }]), 1);
    expect(events).toEqual([{ type: 'response.started', response_id: 'r' }]);
  });
});

describe('withStreamTimeouts idle clock', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A port yielding `text.delta` events `gapMs` apart (`gaps`), then a stall after `stallAfter` events (or `done`). */
  function pacedPort(gaps: number[], end: 'done' | 'stall'): ModelPort {
    return {
      async *stream(_r: ModelRequest, signal: AbortSignal) {
        for (const [i, gap] of gaps.entries()) {
          await sleep(gap);
          yield { type: 'text.delta', text: String(i) };
        }
        if (end === 'done') yield done;
        else await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    };
  }

  it('does not count the time the consumer holds an event, and restarts at every event', async () => {
    // Events 60 ms apart for 600 ms (six idle limits of 100 ms in all), each held 250 ms by the consumer.
    const timed = withStreamTimeouts(pacedPort(Array(10).fill(60), 'done'), { idleMs: 100, requestMs: 10_000, retries: 0 });
    const got: string[] = [];
    for await (const e of timed.stream(request, new AbortController().signal)) {
      got.push(e.type === 'text.delta' ? e.text : e.type);
      if (got.length === 2) await sleep(250);
    }
    expect(got).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'response.done']);
  });

  it('after a held event, times out one idle limit after the consumer asks again, not before', async () => {
    const timed = withStreamTimeouts(pacedPort([0], 'stall'), { idleMs: 150, requestMs: 10_000, retries: 0 });
    let askedAgainAt = 0;
    const failedAt = await (async () => {
      try {
        for await (const _e of timed.stream(request, new AbortController().signal)) {
          await sleep(400); // the idle limit passes while the consumer holds the event
          askedAgainAt = performance.now();
        }
      } catch (err) {
        expect((err as Error).message).toBe('the model sent nothing for 0.15 s (MODEL_IDLE_TIMEOUT_MS)');
        return performance.now();
      }
      throw new Error('no model_timeout');
    })();
    expect(failedAt - askedAgainAt).toBeGreaterThanOrEqual(140);
    expect(failedAt - askedAgainAt).toBeLessThan(1000);
  });
});
