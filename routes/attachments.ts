/**
 * GET /v1/turns/{id}/attachments/{attachment_id} — download a reply attachment (a snapshot the
 * turn's `reply_attachment` call made; its `presentation` event carries this URL). Served with
 * the attachment's content type, `Content-Disposition: attachment` (UTF-8 file name, RFC 6266 /
 * RFC 8187; never with control characters, bidi controls or folders),
 * `X-Content-Type-Options: nosniff` and a sandboxing CSP, so a browser never runs it as part of
 * this origin. With AUTH_TOKENS set, the turn's stream token (`?stream_token=` from
 * its `links.events`) works here too, for browser downloads. 404 `attachment_not_found`. With
 * DATABASE_URL the bytes come from Postgres, so any instance serves any turn's attachment (503
 * `database_unavailable` while it does not answer).
 */
import { z } from 'zod';
import { downloadName } from '../src/attachments/file-name.js';
import { HttpError, notFound } from '../src/http/errors.js';
import { escapeUnsafeChars, quoteForDisplay } from '../src/unsafe-chars.js';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { TurnIdParams } from './turn-schemas.js';

const Params = TurnIdParams.extend({ attachment_id: z.string().min(1).max(100) });
const Query = z.object({ stream_token: z.string().optional() });

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` for the
 * attachment's {@link downloadName}: neither form carries a control character, a bidirectional
 * control or a folder (`/`, `\`), also for a name stored before `reply_attachment` refused them.
 */
export function contentDisposition(stored: string): string {
  const name = downloadName(stored);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export const attachmentRoutes: RoutePlugin = async (app, { services }) => {
  app.get('/v1/turns/:id/attachments/:attachment_id', { config: { query: Query } }, async (request, reply) => {
    const { id, attachment_id } = Params.parse(request.params);
    Query.parse(request.query);
    if (!(await services.turns.get(id))) throw notFound('turn', id);
    const store = services.registry.attachments;
    const a = store ? await store.get(id, attachment_id) : undefined;
    if (!store || !a) {
      // No route lists a turn's attachments: each is announced by a presentation event of the turn.
      // The turn exists, so its id is one this service made; the attachment id is the client's.
      throw new HttpError(404, 'attachment_not_found', `turn ${id} has no attachment ${quoteForDisplay(attachment_id)}: check the id; the turn's presentation events (GET /v1/turns/${id}/events) carry the URL of each attachment it made`, {
        resource: 'attachment',
        id: escapeUnsafeChars(attachment_id),
        turn_id: id,
        attachment_id: escapeUnsafeChars(attachment_id),
      });
    }
    return reply
      .header('content-type', a.mime_type)
      .header('content-length', String(a.size))
      .header('content-disposition', contentDisposition(a.name))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, max-age=3600, immutable')
      .send(store.open(a));
  });
};
