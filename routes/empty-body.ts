/**
 * Body schema of the control routes that take no fields — POST /v1/turns/{id}/cancel, POST
 * /v1/jobs/{id}/stop and POST /v1/workflows/{id}/cancel: no body, or `{}`. Like every other body (strict objects), a field the route
 * does not know is refused rather than ignored — a `reason` sent there would otherwise look
 * stored.
 */
import { z } from 'zod';

/**
 * Schema of "no body or `{}`" for the route whose action is `action` (`stop`, `cancel`): parse
 * `request.body` as it is (undefined for no body, also an empty one sent with `Content-Type:
 * application/json`; a JSON `null` is a body that is not an object and refused like `[]`). Refusals (400 `invalid_request` through the error handler) say
 * `has unknown field "reason": <action> takes no fields; send no body or {}` (every unknown key
 * named, quoted) and, for a body that is not an object, `must be {} or absent: …`.
 */
export function emptyBody(action: string) {
  const takesNothing = `${action} takes no fields; send no body or {}`;
  return z
    .strictObject(
      {},
      {
        error: (iss) => {
          if (iss.code === 'unrecognized_keys') {
            const keys = iss.keys.map((k) => JSON.stringify(k)).join(', ');
            return `has unknown ${iss.keys.length === 1 ? 'field' : 'fields'} ${keys}: ${takesNothing}`;
          }
          if (iss.code === 'invalid_type') return `must be {} or absent: ${takesNothing}`;
          return undefined;
        },
      },
    )
    .optional();
}
