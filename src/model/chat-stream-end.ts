/**
 * Chat Completions adapter, streams that end without an answer: what the chunks of one response
 * held, tallied as they arrive, so a stream that ended without a usable ending is reported for
 * what it was — not as a stream without a single event (the runtime's message when nothing came
 * at all, src/runtime/model-response.ts). The cases:
 * - chunks came but none had a choice (`choices: []` or none in each — e.g. only a usage chunk);
 * - choices came but never choice 0 (the one this service asks for and reads);
 * - choice 0 came but the stream ended without a `finish_reason` (the answer may be cut).
 * Each is ModelError `stream_interrupted` (the stream ended before the response completed), marked
 * as raised after the response headers arrived (the request was accepted; usage is unknown).
 */
import { afterResponse, ModelError, streamPhrase } from './model-error.js';

type Raw = Record<string, unknown>;

/** Counts over the chunks of one streamed answer. Feed every parsed chunk to {@link add}. */
export class ChatChunkTally {
  /** Chunks received. */
  chunks = 0;
  /** Chunks with a non-empty `choices` list. */
  private withChoices = 0;
  /** Chunks with a choice of index 0 (a missing index counts as 0, as the assembler reads it). */
  private withChoice0 = 0;
  /** Indices of the other choices seen (the first few). */
  private readonly others = new Set<number>();

  /** Count one chunk (the parsed `data:` JSON, unvalidated). */
  add(chunk: unknown): void {
    this.chunks++;
    const choices = (chunk as Raw | null)?.choices;
    if (!Array.isArray(choices) || choices.length === 0) return;
    this.withChoices++;
    let zero = false;
    for (const c of choices as (Raw | null)[]) {
      const index = c?.index ?? 0;
      if (index === 0) zero = true;
      else if (typeof index === 'number' && this.others.size < 5) this.others.add(index);
    }
    if (zero) this.withChoice0++;
  }

  /**
   * Why the stream gave no usable answer, or undefined when it did (or when no chunk came at all:
   * the runtime says that one).
   * @param ended whether the adapter produced a `response.done` from what came (a finish_reason).
   * @param endpoint the endpoint as messages name it (model-error.ts `streamPhrase`), when known.
   * @returns ModelError `stream_interrupted` (after the response headers) whose message names the
   *   endpoint and the case, e.g. `the stream from the model endpoint http://127.0.0.1:8000/v1
   *   ended without an answer: no choice 0 in any chunk (its 3 chunks had only choice 1; …)`.
   */
  problem(ended: boolean, endpoint?: string): ModelError | undefined {
    const n = this.chunks;
    if (n === 0) return undefined;
    const chunks = `${n} chunk${n === 1 ? '' : 's'}`;
    const stream = streamPhrase(endpoint);
    let message: string | undefined;
    if (this.withChoices === 0) {
      message = `${stream} ended without an answer: none of its ${chunks} had a choice ("choices" was empty or missing in each)`;
    } else if (this.withChoice0 === 0) {
      const others = [...this.others].sort((a, b) => a - b).join(', ');
      message = `${stream} ended without an answer: no choice 0 in any chunk (its ${chunks} had only choice ${others}; this service asks for one choice and reads choice 0)`;
    } else if (!ended) {
      message = `${stream} ended without a finish_reason (after ${chunks}): the answer may be cut off, so it was not used`;
    }
    return message === undefined ? undefined : afterResponse(new ModelError('stream_interrupted', message));
  }
}
