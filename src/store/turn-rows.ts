/**
 * The `turns` row as both engines return it (SQLite and Postgres keep the same columns; JSON fields
 * are text, `usage_unknown` is 0/1 on SQLite and a boolean on Postgres) and its mapping to the
 * {@link TurnRecord} the API returns.
 */
import { hasText } from '../unsafe-chars.js';
import { stripUnsafeChars } from '../unsafe-chars.js';
import type { TurnRecord } from '../turns/turn-service-types.js';

/** One `turns` row (the record columns plus the stored request). */
export type TurnRow = Omit<TurnRecord, 'kind' | 'origin' | 'usage' | 'error' | 'metadata' | 'input_preview' | 'previous_turn_id'> & {
  kind: string;
  request: string;
  origin: string;
  input_tokens: number;
  output_tokens: number;
  /** Set when a response came without usage: the record's usage is null (unknown), not the sums. */
  usage_unknown: number | boolean | null;
  error: string | null;
  metadata: string | null;
};

/** A row as the turn record (JSON columns parsed, `previous_turn_id` and `input_preview` read from the request). */
export function turnRecordFromRow(r: TurnRow): TurnRecord {
  const request = parseRequest(r.request);
  return {
    id: r.id,
    agent_id: r.agent_id,
    status: r.status,
    kind: r.kind as TurnRecord['kind'],
    origin: JSON.parse(r.origin),
    model: r.model,
    created_at: r.created_at,
    started_at: r.started_at,
    completed_at: r.completed_at,
    output_text: r.output_text,
    stop_reason: r.stop_reason,
    steps: r.steps,
    usage: r.usage_unknown ? null : { input_tokens: r.input_tokens, output_tokens: r.output_tokens },
    error: r.error === null ? null : JSON.parse(r.error),
    metadata: r.metadata === null ? null : JSON.parse(r.metadata),
    trace_id: r.trace_id,
    previous_turn_id: typeof request?.previous_turn_id === 'string' ? request.previous_turn_id : null,
    input_preview: previewOf(request?.input),
  };
}

/** The stored request JSON as an object, or undefined when it is not readable. */
function parseRequest(requestJson: string): { input?: unknown; previous_turn_id?: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(requestJson);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}


/** Max characters of {@link TurnRecord.input_preview}. */
const PREVIEW_CHARS = 120;

/**
 * Line breaks a preview stops at: `\n`, `\r`, vertical tab, form feed, NEL (U+0085) and the
 * Unicode line and paragraph separators (U+2028, U+2029) — every character that ends a line.
 */
const LINE_BREAKS = /[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * One line of input as clean one-line text: a tab becomes a space, other control characters
 * (`\p{Cc}`: NUL, ESC, DEL, …), invisible U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F, U+200B, U+2060–U+2065, U+206A–U+206F, U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+13430–U+1343F, U+1BCA0–U+1BCA3, U+1D173–U+1D17A, U+E0000–U+E007F, variation selectors not after a character they apply to and bidirectional controls are
 * dropped ({@link stripUnsafeChars}:
 * kept in a preview a U+202E could make a list show `invoice_\u202Egnp.exe` as
 * "invoice_exe.png"), runs of whitespace become one space, ends trimmed.
 */
function cleanLine(line: string): string {
  return stripUnsafeChars(line.replace(/\t/g, ' ')).replace(/\s+/g, ' ').trim();
}

/**
 * {@link TurnRecord.input_preview}: the first line of the turn's input that has text once cleaned
 * ({@link cleanLine}; lines end at any of {@link LINE_BREAKS}; text as {@link hasText} counts it,
 * so a line of only zero-width characters has none). A list input is searched message by message:
 * the user messages in order, then the others in order; a blank message is skipped. The line is
 * cut to {@link PREVIEW_CHARS} code points (the last one `…` when cut); null when no line has text
 * or the request is not readable.
 */
export function inputPreview(requestJson: string): string | null {
  return previewOf(parseRequest(requestJson)?.input);
}

/** {@link inputPreview} of a request's `input`. */
function previewOf(input: unknown): string | null {
  let texts: unknown[] = [input];
  if (Array.isArray(input)) {
    const msgs = input as ({ role?: unknown; content?: unknown } | null)[];
    texts = [...msgs.filter((m) => m?.role === 'user'), ...msgs.filter((m) => m?.role !== 'user')].map((m) => m?.content);
  }
  for (const text of texts) {
    if (typeof text !== 'string') continue;
    const line = text.split(LINE_BREAKS).map(cleanLine).find(hasText);
    if (line === undefined) continue;
    const chars = [...line];
    return chars.length > PREVIEW_CHARS ? `${chars.slice(0, PREVIEW_CHARS - 1).join('')}…` : line;
  }
  return null;
}
