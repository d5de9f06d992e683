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
