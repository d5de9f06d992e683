/** Conversion of `openai` SDK errors into {@link ModelError}s (Responses adapter). */
import { APIConnectionError, APIError } from 'openai';
import { connectionError, endpointForDisplay, httpErrorMessage, ModelError, streamBroke } from './model-error.js';
import { providerErrorText } from './provider-text.js';

/**
 * Convert anything thrown while talking to the model into a {@link ModelError}.
 * SDK `APIError`s keep their string `code`, else become `http_<status>` (for an error inside the
 * stream, which has no status: `http_<code>` for a numeric code, else its `type`); connection failures and
 * mid-stream socket errors become `connection_error` / `stream_interrupted`. The message names the
 * endpoint (model-error.ts `httpErrorMessage`, `streamBroke`; without credentials) and quotes the
 * provider's `error.message` when it sent one; an HTML page is summarized (its size and title:
 * provider-text.ts `providerErrorText`, which also reads vLLM's, FastAPI's and TGI's error
 * bodies). Secrets and size are dealt with once, for both
 * adapters, by src/model/clean-errors.ts.
 */
export function toModelError(err: unknown, endpoint?: { baseURL: string }): ModelError {
  if (err instanceof ModelError) return err;
  if (err instanceof APIConnectionError) return connectionError(err, endpoint?.baseURL);
  if (err instanceof APIError) {
    const body = err.error as { code?: unknown; type?: unknown; message?: unknown } | undefined;
    const code =
      (typeof err.code === 'string' && err.code) ||
      (typeof body?.code === 'string' && body.code) ||
      (err.status !== undefined ? `http_${err.status}` : undefined) ||
      // An error inside the stream with a numeric code (vLLM's `"code": 400`): that status, as the Chat Completions adapter reads it.
      (typeof body?.code === 'number' ? `http_${body.code}` : undefined) ||
      (typeof err.type === 'string' && err.type) ||
      'model_error';
    const text = providerErrorText(err) || (err.status === undefined ? code : '');
    return new ModelError(code, httpErrorMessage(err.status, text, endpoint?.baseURL), err.status);
  }
  const e = err as Error;
  // undici reports a reset/closed socket mid-body as TypeError("terminated") or similar.
  return streamBroke(e?.message ?? String(err), endpoint && endpointForDisplay(endpoint.baseURL));
}
