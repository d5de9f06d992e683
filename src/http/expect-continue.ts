/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): a client that asks before sending its body (curl does
 * for bodies over 1 MB) is told at once when the body would be refused — a Content-Length over the
 * limit of the route it is sent to (BODY_LIMIT_BYTES, or the route's own, e.g. 10 MiB for a skill
 * archive: src/http/body-limit.ts) gets the same 413 `body_too_large` the body parser gives, and
 * any refusal of the hooks before (401, 415 of the skill route, …) comes as it is — instead of
 * `100 Continue`, megabytes sent and a 413 in the middle of them, which clients often never read
 * (the connection closes while they still write: curl's "Send failure: Broken pipe"). So the
 * answer waits until the request has passed the `onRequest` hooks, and its route is known: a
 * `preParsing` hook sends `100 Continue`, or the 413.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { bodyLimitOf, bodyTooLarge } from './body-limit.js';

/** Requests that asked `Expect: 100-continue` and have had no answer yet. */
const waiting = new WeakSet<IncomingMessage>();

/**
 * Answer `Expect: 100-continue` on `app`'s server: in a `preParsing` hook (call before the routes
 * are registered), 413 `body_too_large` with `Connection: close` when Content-Length is over the
 * route's body limit ({@link bodyLimitOf}), else `100 Continue`. A request refused before that
 * hook gets its refusal without `100 Continue`.
 */
export function installExpectContinue(app: FastifyInstance): void {
  app.server.on('checkContinue', (req, res) => {
    waiting.add(req);
    app.server.emit('request', req, res);
  });
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!waiting.delete(request.raw)) return done(null, payload);
    const limit = bodyLimitOf(request);
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > limit.bytes) {
      reply.code(413).header('connection', 'close').send(bodyTooLarge(limit));
      return;
    }
    reply.raw.writeContinue();
    done(null, payload);
  });
}
