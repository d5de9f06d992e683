/**
 * Responses adapter, request bodies: `responses.create` params → the JSON text sent, with the
 * JSON of each `input` item and of the tool list kept per object, so a turn does not serialize
 * its whole transcript again for every request.
 *
 * Why: in stateless mode every request carries the whole transcript, so serializing it each
 * round is quadratic in the turn's length; and the SDK's own `responses.create` serializes the
 * body with a replacer function called for every key of every item (it watches the `stream`
 * field), several times slower than a plain `JSON.stringify`. Here the items' JSON is joined
 * instead, and the SDK gets the finished text (`client.post` passes a string body with a
 * `content-type` verbatim, and keeps it for its retries).
 *
 * Safe because what is cached never changes: input items come from the adapter's per-item
 * conversion cache (responses-items.ts: transcript items are never mutated once appended, and
 * their converted forms are only serialized) and tool lists from {@link toResponsesTools}'s
 * cache (a turn's tool list is built once per set of loaded tools and never changed after). An object this module has
 * not seen is simply serialized. The text is the same JSON as `JSON.stringify(params)` up to the
 * order of the top-level keys (`input` and `tools` come last).
 */
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { appendMemo } from './append-memo.js';

/** JSON text per object known to be immutable (converted input items, converted tool lists). */
const jsonOf = new WeakMap<object, string>();

function cachedJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let json = jsonOf.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    jsonOf.set(value, json);
  }
  return json;
}

/** The items of `input` as JSON joined by commas, extended from the previous request's (append-memo.ts). */
const inputJson = appendMemo<unknown, string>('', (acc, items, from) => {
  let json = acc;
  for (let i = from; i < items.length; i++) json += (i > 0 ? ',' : '') + cachedJson(items[i]);
  return json;
});

/**
 * The JSON body of a Responses request: `params` serialized, with `input` (when an array) and
 * `tools` joined from per-object cached JSON. Objects in `input` and the `tools` array must not
 * be mutated after they were first sent (see the module doc).
 * @returns a JSON object text equal to `JSON.stringify(params)` up to top-level key order.
 */
export function encodeResponsesBody(params: ResponseCreateParamsStreaming): string {
  const { input, tools, ...rest } = params;
  let json = JSON.stringify(rest);
  const tail: string[] = [];
  if (Array.isArray(input)) {
    tail.push(`"input":[${inputJson.over(input)}]`);
  } else if (input !== undefined) {
    tail.push(`"input":${JSON.stringify(input)}`);
  }
  if (tools !== undefined) tail.push(`"tools":${cachedJson(tools)}`);
  if (tail.length > 0) json = `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}${tail.join(',')}}`;
  return json;
}
