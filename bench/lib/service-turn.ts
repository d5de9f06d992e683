/**
 * One turn through the service as a client sees it: `POST /v1/turns` with
 * `Accept: text/event-stream`, every event parsed (eventsource-parser, the WHATWG rules, and
 * `JSON.parse` of each `data:`) until the stream closes after the terminal event.
 *
 * The client reads with `node:http` (a keep-alive agent), not `fetch`: fetch's web-stream body
 * costs more per received chunk than the service spends writing the event, and everything here
 * runs in the bench's one process — with fetch the bench would mostly weigh its own client.
 * Every event still crosses the loopback socket, is split into frames and parsed.
 */
import http from 'node:http';
import { createParser } from 'eventsource-parser';

/** One parsed event of the stream. */
export interface ServiceTurnEvent {
  id: string | undefined;
  event: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of a turn event
  json: any;
}

const agent = new http.Agent({ keepAlive: true });

function postSse(url: string, body: unknown): Promise<{ status: number; events: ServiceTurnEvent[] }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const events: ServiceTurnEvent[] = [];
      const parser = createParser({ onEvent: (m) => events.push({ id: m.id, event: m.event, json: JSON.parse(m.data) }) });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, events }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Run one turn of `rounds` noop rounds. @returns its events.
 * @throws when it does not complete with `done` after rounds + 1 steps, or ids are not 1, 2, 3….
 */
export async function serviceTurn(url: string, rounds: number, input = 'go'): Promise<ServiceTurnEvent[]> {
  const r = await postSse(`${url}/v1/turns`, { input, max_steps: rounds + 1 });
  const last = r.events.at(-1)?.json;
  if (r.status !== 200 || last?.type !== 'turn.completed' || last.output_text !== 'done' || last.steps !== rounds + 1) {
    throw new Error(`service turn ended ${r.status} ${JSON.stringify(last ?? null)}`);
  }
  r.events.forEach((e, i) => {
    if (e.id !== String(i + 1)) throw new Error(`event ${i} has id ${e.id}`);
  });
  return r.events;
}
