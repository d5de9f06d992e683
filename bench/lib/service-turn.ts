/**
 * One turn through the service as a client sees it: `POST /v1/turns` with
 * `Accept: text/event-stream`, every event read and parsed (test/e2e/support/sse-client.ts:
 * fetch + eventsource-parser) until the stream closes after the terminal event.
 */
import { readSse, type SseEvent } from '../../test/e2e/support/sse-client.js';

/**
 * Run one turn of `rounds` noop rounds. @returns its events.
 * @throws when it does not complete with `done` after rounds + 1 steps, or ids are not 1, 2, 3….
 */
export async function serviceTurn(url: string, rounds: number, input = 'go'): Promise<SseEvent[]> {
  const r = await readSse(`${url}/v1/turns`, { method: 'POST', body: { input, max_steps: rounds + 1 }, timeoutMs: 300_000 });
  const last = r.events.at(-1)?.json;
  if (r.status !== 200 || last?.type !== 'turn.completed' || last.output_text !== 'done' || last.steps !== rounds + 1) {
    throw new Error(`service turn ended ${r.status} ${JSON.stringify(last ?? r.body)}`);
  }
  r.events.forEach((e, i) => {
    if (e.id !== String(i + 1)) throw new Error(`event ${i} has id ${e.id}`);
  });
  return r.events;
}
