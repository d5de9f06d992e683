/**
 * The body half of the request timeout (REQUEST_TIMEOUT_MS). Node's `requestTimeout` cuts a
 * request whose headers do not arrive in time (408 through the app's clientErrorHandler), but
 * once the headers are in, a body that stops arriving — `Content-Length: 100` and ten bytes, or a
 * byte now and then (slowloris) — is never cut. This hook gives the body the rest of the same
 * deadline: when the request is still incomplete then, the body stream fails with
 * HttpError 408 `request_timeout`, which the body parser hands to the error handler (the usual
 * envelope), and the connection is closed after that response (the rest of the body never comes).
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';

/** Install on `app`: a request must be received whole within `timeoutMs` of its start (ms). */
export function installBodyTimeout(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete) return done();
    const timer = setTimeout(() => {
      if (raw.complete || raw.destroyed) return;
      const err = new HttpError(408, 'request_timeout', `the request body did not arrive within ${timeoutMs} ms (REQUEST_TIMEOUT_MS): send the whole body at once, or raise REQUEST_TIMEOUT_MS for slow links`);
      (err as unknown as { statusCode: number }).statusCode = 408;
      reply.header('connection', 'close');
      // The body parser listens for 'error' while it reads; before it does (a hook still running), only closing is left.
      if (raw.listenerCount('error') > 0) raw.emit('error', err);
      else raw.destroy();
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    done();
  });
}
