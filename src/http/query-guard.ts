/**
 * Query parameters of the API routes (`/v1/…`) are checked before any route reads them:
 * - a name the route does not accept (a typo such as `?wiat=true` or `?last_event_id=3`) is refused
 *   instead of silently ignored — the request would otherwise succeed doing something else (202
 *   instead of waiting, a replay from the first event);
 * - a percent-escape that is not `%` and two hex digits, or not UTF-8 (`?%zz=1`), is refused as
 *   400 `invalid_url` (details `{part: "query", query, bad}`), as one in the path is;
 * - a name given twice (`?limit=1&limit=2`) is refused (no route takes a list in its query) instead
 *   of the route reading the pair as a value of the wrong type.
 * A route declares the parameters it accepts with its query schema in the route options, `{config:
 * {query: ListTurnsQuery}}`: the schema's keys are the accepted names (the route still parses the
 * values with it). A `/v1/` route without one accepts none. Routes outside `/v1/` (health, metrics,
 * the console and docs pages, openapi.yaml) are not checked: probes and browsers may add their own.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { badEscape } from './error-handler.js';
import { badRequest, HttpError, listIssues } from './errors.js';
import { issuePath } from '../zod-messages.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's query schema: its keys are the query parameters the route accepts (src/http/query-guard.ts). */
    query?: z.ZodObject;
  }
}

/** One refused query parameter, as in the 400's `details`. */
export interface QueryIssue {
  path: string;
  code: 'unknown_parameter' | 'duplicate_parameter';
  message: string;
}

/** `GET /v1/turns/{id}` for the route of `request` (the declared URL with `{name}` parameters). */
function routeName(request: FastifyRequest): string {
  return `${request.method} ${(request.routeOptions.url ?? '').replace(/:([A-Za-z_]+)/g, '{$1}')}`;
}

/**
 * The problems of `query` for a route that accepts `accepted` (names, in the order documented).
 * @param route the route as shown in messages, e.g. `POST /v1/turns`.
 * @returns one issue per unknown name (code `unknown_parameter`, `path` the name as every 400
 *   spells a path — unsafe characters as `\uXXXX`, over 80 characters cut: src/zod-messages.ts
 *   `issuePath` —, its message naming the accepted
 *   ones or saying the route takes none), then one per repeated name (`duplicate_parameter`);
 *   empty when the query is fine.
 */
export function queryIssues(query: Record<string, unknown>, accepted: readonly string[], route: string): QueryIssue[] {
  const issues: QueryIssue[] = [];
  const unknown = accepted.length === 0
    ? `is not accepted: ${route} takes no query parameters; leave it out`
    : `is not accepted by ${route}, which accepts only ${accepted.join(', ')}: check the spelling or leave it out`;
  for (const name of Object.keys(query)) {
    if (accepted.includes(name)) continue;
    issues.push({ path: issuePath([name]), code: 'unknown_parameter', message: name === '' ? `has an empty name (\`?=value\`): ${route} ${accepted.length === 0 ? 'takes no query parameters' : `accepts only ${accepted.join(', ')}`}; write the name before the =` : unknown });
  }
  for (const [name, v] of Object.entries(query)) {
    if (Array.isArray(v)) issues.push({ path: issuePath([name]), code: 'duplicate_parameter', message: `is given ${v.length} times; give it once` });
  }
  return issues;
}

/**
 * Install on `app` (a preValidation hook: after auth, before any route reads its query).
 * @throws HttpError 400 `invalid_request` with one `details` entry per {@link queryIssues} issue
 *   (the first 20, MAX_LISTED_ISSUES in ./errors.ts; the message counts the rest),
 *   `[{path: "wiat", code: "unknown_parameter", message: "is not accepted by POST /v1/turns, which
 *   accepts only wait: check the spelling or leave it out"}]`, `[{path: "limit", code: "duplicate_parameter",
 *   message: "is given 2 times; give it once"}]`; the message is `query parameter <path> <message>`
 *   for each, joined by `; `.
 */
export function installQueryGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query || typeof query !== 'object') return;
    const url = request.routeOptions.url;
    const rawQuery = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    if (url?.startsWith('/v1/') && badlyEscaped(rawQuery).length > 0) {
      throw new HttpError(400, 'invalid_url', badEscape('query', rawQuery).error.message, { part: 'query', query: rawQuery, bad: badlyEscaped(rawQuery) });
    }
    if (url === undefined || !url.startsWith('/v1/')) {
      // Outside the API only repeats are refused (as before); unknown names are left to the page.
      const repeated = queryIssues(query, Object.keys(query), routeName(request));
      if (repeated.length > 0) throw refusal(repeated);
      return;
    }
    const schema = request.routeOptions.config.query;
    const issues = queryIssues(query, schema ? Object.keys(schema.shape) : [], routeName(request));
    if (issues.length > 0) throw refusal(issues);
  });
}

function refusal(issues: QueryIssue[]) {
  const line = (i: QueryIssue) => (i.path === '' ? `a query parameter ${i.message}` : `query parameter ${i.path} ${i.message}`);
  const listed = listIssues(issues, line);
  return badRequest('invalid_request', listed.message, listed.details);
}

/**
 * The `name=value` pieces of the raw query string `query` (after `?`) with a bad percent-escape: a
 * `%` not followed by two hex digits, or escapes that do not decode to UTF-8. The query parser keeps
 * such text as it is (`?%zz=1` reads as a parameter named `%zz`), so they are found here.
 */
export function badlyEscaped(query: string): string[] {
  return query.split('&').filter((piece) => {
    try {
      decodeURIComponent(piece.replace(/\+/g, ' '));
      return false;
    } catch {
      return true;
    }
  });
}
