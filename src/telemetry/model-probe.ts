/**
 * Reachability probe of the model endpoint for GET /readyz: `GET <base URL>/models` on the model
 * clients' HTTP stack (src/model/model-fetch.ts); any HTTP
 * answer (also 401 or 404) means reachable, a connection failure or a timeout means not. The
 * result is cached for `ttlMs` (concurrent checks share one request), so readiness polling never
 * floods the provider. The reason of an unreachable endpoint names it and the cause, and says what
 * to check (OPENAI_BASE_URL, whether the model server runs); one that accepts the connection and
 * closes it before answering is said to do so (model-error.ts `closedBeforeAnswering`), and one that
 * answers in another protocol than HTTP too (`answeredNotHttp`).
 */
import { answeredNotHttp, CLOSED_HINT, closedBeforeAnswering, CONNECTION_HINT, connectionCause, endpointForDisplay, NOT_HTTP_HINT } from '../model/model-error.js';
import { discardBody, modelFetch } from '../model/model-fetch.js';

export type ProbeResult = { reachable: true } | { reachable: false; reason: string };

export interface ModelProbe {
  readonly baseURL: string;
  check(): Promise<ProbeResult>;
}

export function createModelProbe(baseURL: string, opts: { ttlMs?: number; timeoutMs?: number } = {}): ModelProbe {
  const ttl = opts.ttlMs ?? 15_000;
  const timeout = opts.timeoutMs ?? 3_000;
  let cached: { at: number; result: Promise<ProbeResult> } | undefined;
  const probe = async (): Promise<ProbeResult> => {
    try {
      // The model clients' own HTTP stack (model-fetch.ts), so readiness sees what turns see.
      const res = await modelFetch(`${baseURL.replace(/\/+$/, '')}/models`, { signal: AbortSignal.timeout(timeout) });
      await discardBody(res); // the answer itself does not matter
      return { reachable: true };
    } catch (err) {
      const e = err as Error;
      const cause = e.name === 'TimeoutError' ? `no answer within ${timeout} ms` : (connectionCause(err) ?? e.message);
      const where = `the model endpoint ${endpointForDisplay(baseURL)}`;
      if (answeredNotHttp(err)) return { reachable: false, reason: `${where} answered with something that is not HTTP (${cause}): ${NOT_HTTP_HINT}` };
      if (closedBeforeAnswering(cause)) return { reachable: false, reason: `${where} accepted the connection and closed it before answering (${cause}): ${CLOSED_HINT}` };
      return { reachable: false, reason: `cannot reach ${where} (${cause}): ${CONNECTION_HINT}` };
    }
  };
  return {
    baseURL,
    check() {
      if (!cached || Date.now() - cached.at > ttl) cached = { at: Date.now(), result: probe() };
      return cached.result;
    },
  };
}
