/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): a client that asks before sending its body (curl does
 * for bodies over 1 MB) is told at once when a JSON body that large would be refused, with the
 * same 413 `body_too_large` the body parser gives, instead of `100 Continue`, megabytes sent and a
 * 413 in the middle of them — which clients often never read (the connection closes while they
 * still write: curl's "Send failure: Broken pipe"). Anything else gets `100 Continue` and goes on
 * as a normal request (route-specific limits, e.g. skill archives, are checked as usual).
 */
import type { FastifyInstance } from 'fastify';
import { bodyTooLarge } from './errors.js';

/** Answer `Expect: 100-continue` of `app`'s server; `limit` = BODY_LIMIT_BYTES (JSON bodies). */
export function installExpectContinue(app: FastifyInstance, limit: number): void {
  app.server.on('checkContinue', (req, res) => {
    const length = Number(req.headers['content-length']);
    const type = String(req.headers['content-type'] ?? 'application/json').split(';')[0].trim().toLowerCase();
    if (type === 'application/json' && Number.isFinite(length) && length > limit) {
      const body = JSON.stringify(bodyTooLarge(limit));
      res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
      res.end(body);
      return;
    }
    res.writeContinue();
    app.server.emit('request', req, res);
  });
}
