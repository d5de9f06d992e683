/**
 * An in-process scripted {@link ModelPort}: no HTTP, no SDK — the Responses adapter over a
 * transport that yields the same event sequence the scripted server would stream (built by
 * `buildOutputEvents`), instantly. For
 * benchmarks and tests that measure the runtime itself; behaviour tests should prefer the real
 * SDK against `startScriptedResponsesServer`.
 *
 * Each entry answers one request: an {@link OutputStep} or `(request, index) => OutputStep`.
 * Every request is recorded in `requests` (wire form, as the Responses adapter built it).
 */
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ModelPort } from '../../src/model/port.js';
import { createResponsesModel, type ResponsesModelOptions } from '../../src/model/responses-model.js';
import { buildOutputEvents, type OutputStep } from './scripted-responses-server.js';

export type InProcessEntry = OutputStep | ((request: ResponseCreateParamsStreaming, index: number) => OutputStep);

export interface InProcessModel extends ModelPort {
  requests: ResponseCreateParamsStreaming[];
}

export function createInProcessModel(
  entries: InProcessEntry[] | ((request: ResponseCreateParamsStreaming, index: number) => OutputStep),
  options: ResponsesModelOptions = {},
): InProcessModel {
  const requests: ResponseCreateParamsStreaming[] = [];
  const port = createResponsesModel({
    async *stream(request) {
      const index = requests.length;
      requests.push(request);
      const entry = typeof entries === 'function' ? entries : entries[index];
      if (!entry) throw new Error(`in-process model: no script entry for request #${index}`);
      const step = typeof entry === 'function' ? entry(request, index) : entry;
      const events = buildOutputEvents(step, request as unknown as Record<string, unknown>);
      for (let i = 0; i < events.length; i++) yield { ...events[i], sequence_number: i } as unknown as ResponseStreamEvent;
    },
  }, options);
  return { requests, stream: (request, signal) => port.stream(request, signal) };
}
