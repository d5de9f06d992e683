/**
 * Query parameters of a URL that carry credentials (`?api-key=…`, `?access_token=…`,
 * `?sig=…`): named like a token, key, secret, password, signature, credential or session, or
 * exactly `code` (Azure Functions' function key: `?code=…`,
 * https://learn.microsoft.com/azure/azure-functions/function-keys-how-to). One rule for the
 * places that must not show them: URLs in logs, spans and messages ({@link redactUrl} in
 * src/http/stream-token.ts) and the secret values removed from a provider's error text
 * (src/config.ts `configSecrets`).
 */

/** A query parameter name that carries a credential. */
export const CREDENTIAL_PARAM = /token|auth|key|secret|passw|sig|credential|session|^code$/i;

/**
 * The values of `url`'s credential query parameters ({@link CREDENTIAL_PARAM}), as decoded by
 * URLSearchParams and as written (percent-encoded) when that differs; none for a URL without a
 * query or one that is not a URL.
 */
export function credentialParamValues(url: string | undefined): string[] {
  if (!url) return [];
  const q = url.indexOf('?');
  if (q === -1) return [];
  const query = url.slice(q + 1).split('#')[0];
  const out: string[] = [];
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const raw = pair.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
      value = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      name = pair.slice(0, eq);
      value = raw;
    }
    if (!CREDENTIAL_PARAM.test(name) || value === '') continue;
    out.push(value);
    if (raw !== value) out.push(raw);
  }
  return out;
}
