/**
 * Headers a request may carry once only (Host, Authorization, Idempotency-Key, Last-Event-ID):
 * counted as sent, since `request.headers` hides repeats — Node keeps the first of some (Host,
 * Authorization, …) and joins others with `, ` (Idempotency-Key, Last-Event-ID) — while
 * `rawHeaders` lists every field. A repeat is refused with 400 `invalid_request`, one detail
 * `{path: "headers.<name>", code: "duplicate_header", message: "is given <n> times; give it once"}`.
 */

/** How many fields named `name` (any case) `rawHeaders` (Node's `[name, value, name, value, …]`) holds. */
export function headerFieldCount(rawHeaders: readonly string[], name: string): number {
  const lower = name.toLowerCase();
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === lower) n++;
  return n;
}

/** One issue of a header given `count` times, as in the 400's details. */
export interface DuplicateHeaderIssue {
  path: string;
  code: 'duplicate_header';
  message: string;
}

/**
 * The issue of header `name` given `count` (> 1) times: `{path: "headers.<name in lower case>",
 * code: "duplicate_header", message: "is given <count> times; give it once"}`.
 */
export function duplicateHeaderIssue(name: string, count: number): DuplicateHeaderIssue {
  return { path: `headers.${name.toLowerCase()}`, code: 'duplicate_header', message: `is given ${count} times; give it once` };
}
