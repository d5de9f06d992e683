/**
 * Chat Completions adapter, errors: anything thrown while talking to a Chat Completions server →
 * a {@link ModelError} with the same codes the Responses adapter uses:
 * - the provider's string `code` (`rate_limit_exceeded`, `insufficient_quota`, …) when it sent one;
 * - `http_<status>` for an HTTP error without a string code (vLLM, llama.cpp and OpenRouter send
 *   numeric codes — those are the status again);
 * - for an error sent inside the stream (`data: {"error": …}`, or older vLLM's `data: {"object":
 *   "error", "message": …, "code": 400}`: sse-events.ts; neither has an HTTP status):
 *   `http_<code>` for a numeric code, else its `type`, else `model_error`;
 * - `connection_error` when the server could not be reached (the message names the endpoint and
 *   the cause, e.g. `ECONNREFUSED 127.0.0.1:8000`); `stream_interrupted` when the stream
 *   broke or was not valid SSE JSON.
 * The message names the endpoint (model-error.ts `httpErrorMessage`, `streamBroke`; without
 * credentials) and quotes the server's `error.message` when it sent one; an HTML page is
 * summarized (its size and title: provider-text.ts `providerErrorText`, which also reads bodies
 * in a server's own shape: vLLM's top-level `message` — the SDK hands over a body without an
 * `error` key whole —, FastAPI's `detail`, TGI's string `error`). Secrets and size are dealt with once,
 * for both adapters, by src/model/clean-errors.ts.
 */
import { APIConnectionError, APIError } from 'openai';
import { connectionError, endpointForDisplay, httpErrorMessage, ModelError, streamBroke } from './model-error.js';
import { providerErrorText } from './provider-text.js';

type Raw = Record<string, unknown>;

/** Convert an error from the SDK's chat stream into a {@link ModelError}. */
export function toChatModelError(err: unknown, endpoint?: { baseURL: string }): ModelError {
  if (err instanceof ModelError) return err;
  if (err instanceof APIConnectionError) return connectionError(err, endpoint?.baseURL);
  if (err instanceof APIError) {
    const body = (err.error ?? {}) as Raw;
    const stringCode = [err.code, body.code].find((c): c is string => typeof c === 'string' && c !== '');
    const numericCode = [err.code, body.code].find((c): c is number => typeof c === 'number');
    const code =
      stringCode ??
      (err.status !== undefined ? `http_${err.status}` : undefined) ??
      (numericCode !== undefined ? `http_${numericCode}` : undefined) ??
      (typeof body.type === 'string' && body.type ? body.type : undefined) ??
      'model_error';
    const text = providerErrorText(err) || (err.status === undefined ? code : '');
    return new ModelError(code, httpErrorMessage(err.status, text, endpoint?.baseURL), err.status);
  }
  const e = err as Error;
  return streamBroke(e?.message ?? String(err), endpoint && endpointForDisplay(endpoint.baseURL));
}
