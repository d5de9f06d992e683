/**
 * zod schemas of the turn request fields that every way of asking for a turn shares: POST
 * /v1/turns (routes/turn-schemas.ts), schedules (src/schedules/schemas.ts, REST and tools), and
 * the Idempotency-Key header of POST /v1/turns and POST /v1/schedules. One definition, so the
 * same value is accepted or refused with the same message everywhere; openapi.yaml mirrors them.
 */
import { z } from 'zod';
import { TOOL_FAMILIES } from '../config.js';
import { hasText } from '../unsafe-chars.js';
import { AGENT_ID_RULE } from '../agent-id.js';
import { namePatternString } from '../name-pattern.js';
import { nameCheck } from '../name-check.js';
import { MAX_INPUT_CHARS } from './inputs/turn-inputs.js';

/** `[A-Za-z0-9_-]{1,64}` (src/agent-id.ts): owns the computer home, schedules, workflows, brain pages. A refusal shows the value and the character not allowed. */
export const AgentIdSchema = namePatternString(AGENT_ID_RULE);

/** One message of a list `input`: `{role: user|assistant|system|developer, content}`, nothing else. */
export const InputMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.string(),
});

/**
 * The message of a {@link textField} without text (the HTTP envelope prefixes the field's path):
 * what is wrong, then what to send.
 */
export const NO_TEXT_MESSAGE = 'must not be empty or only whitespace or control characters: send text with at least one visible character';

/**
 * A string that must contain text ({@link hasText}): `""`, whitespace-only strings (`"   "`,
 * `"\n"`) and strings of only control or format characters (`"\u0000"`) are refused alike (code
 * `custom`, {@link NO_TEXT_MESSAGE}; the 400 says `input must not be empty or only whitespace or
 * control characters: send …`). Used by turn and schedule `input`, steering messages
 * (routes/turn-messages.ts), messages to background jobs (routes/job-schemas.ts) and workflow
 * task prompts (routes/workflow-schemas.ts).
 */
export function textField(): z.ZodString {
  return z.string().check(z.refine(hasText, NO_TEXT_MESSAGE));
}

/**
 * The body of both message routes — a steering message into a turn (POST
 * /v1/turns/{id}/messages, routes/turn-messages.ts) and a message to a background job (POST
 * /v1/jobs/{id}/messages, routes/jobs.ts): `{content}` (the name openapi.yaml and README give),
 * or `{message}`, the accepted alias — each route once took only one of the two names, so a
 * client that learned one works on both. Each is a {@link textField} of at most
 * {@link MAX_INPUT_CHARS} characters (code points, as zod counts: an emoji is 1).
 * Parses to `{content}` (the text, whichever name carried it).
 * Refused (400 `invalid_request`): neither name (`content is required: send the message text as
 * content (message is accepted as another name for it)`); both with different texts (path
 * `message`: `… send the text once, as content`); both with the same text is accepted; any other
 * field (unknown field, accepted fields `content?, message?`).
 */
export const SteeringMessageBody = z
  .strictObject({
    /** The message, as the user would type it (canonical name). */
    content: textField().max(MAX_INPUT_CHARS).optional(),
    /** Another name for `content`, accepted on both routes. */
    message: textField().max(MAX_INPUT_CHARS).optional(),
  })
  .check((ctx) => {
    const { content, message } = ctx.value;
    if (content === undefined && message === undefined) {
      ctx.issues.push({ code: 'custom', path: ['content'], input: undefined, message: 'is required: send the message text as content (message is accepted as another name for it)' });
    } else if (content !== undefined && message !== undefined && content !== message && !ctx.issues.some((i) => i.path?.[0] === 'content' || i.path?.[0] === 'message')) {
      // (Only when both are valid texts: a field refused already says what is wrong with it.)
      ctx.issues.push({ code: 'custom', path: ['message'], input: message, message: 'is another name for content, and the two hold different texts: send the text once, as content' });
    }
  })
  .transform(({ content, message }) => ({ content: (content ?? message)! }));

/**
 * A turn `input`: a string with text, or a non-empty list of role messages of which at least one
 * has text (a blank string or a list of blank messages gives the model nothing to answer).
 */
export const TurnInputSchema = z.union([
  textField(),
  z
    .array(InputMessageSchema)
    .min(1, 'input must have at least one message')
    .refine((list) => list.length === 0 || list.some((m) => hasText(m.content)), 'input must have a message with text: every content is empty or only whitespace or control characters; send at least one with a visible character'),
]);

/** Max serialized size of `metadata`, bytes. */
export const METADATA_MAX_BYTES = 4096;
/** Most keys of `metadata`. */
export const METADATA_MAX_KEYS = 32;
/** Most characters of one `metadata` key. */
export const METADATA_KEY_MAX_CHARS = 64;

/** Size of `metadata` as stored: its JSON serialization, UTF-8 bytes. */
const metadataBytes = (m: unknown): number => Buffer.byteLength(JSON.stringify(m) ?? '');

/**
 * `metadata`: a JSON object of at most {@link METADATA_MAX_KEYS} keys (each ≤
 * {@link METADATA_KEY_MAX_CHARS} chars), ≤ {@link METADATA_MAX_BYTES} serialized (UTF-8 JSON).
 * Too many keys or too many bytes is one issue at `metadata` whose message gives the count sent
 * and the limit, and what to do: `must serialize to at most 4096 bytes of JSON (UTF-8), got 5012:
 * keep large data elsewhere and put a reference to it (an id or a URL) in metadata`.
 *
 * A key is checked for the characters a name may not hold (src/name-check.ts `nameCheck('metadata
 * key', {needsVisibleChar: false})`): a control character, a line or paragraph separator, an
 * invisible character or a bidirectional control is refused (a key of only combining marks or
 * private-use characters, or the empty key, is the client's choice and kept), one issue `invalid_key` at `metadata.<key>` (the key escaped, src/zod-messages.ts):
 * `has an invalid key "invo\u202Ece": must not contain U+202E (a bidirectional control), found at
 * character 5: …; send the metadata key as one line of plain text without them`. Values are the
 * client's own data and kept verbatim: they only go back inside JSON (the turn in answers and
 * webhook payloads), never into log lines or messages.
 */
export const MetadataSchema = z
  .record(z.string().check(nameCheck('metadata key', { needsVisibleChar: false })).max(METADATA_KEY_MAX_CHARS), z.unknown())
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, {
    error: (iss) => `metadata may have at most ${METADATA_MAX_KEYS} keys, got ${Object.keys(iss.input as object).length}: merge related values under one key, or keep them elsewhere and put a reference to them (an id or a URL) in metadata`,
  })
  .refine((m) => metadataBytes(m) <= METADATA_MAX_BYTES, {
    error: (iss) => `metadata must serialize to at most ${METADATA_MAX_BYTES} bytes of JSON (UTF-8), got ${metadataBytes(iss.input)}: keep large data elsewhere and put a reference to it (an id or a URL) in metadata`,
  });

/** `tools`: tool families (src/config.ts TOOL_FAMILIES), each at most once. */
export const ToolFamiliesSchema = z
  .array(z.enum(TOOL_FAMILIES))
  .max(TOOL_FAMILIES.length)
  .refine((a) => new Set(a).size === a.length, 'tools must not repeat a family');

/** Most characters of an Idempotency-Key header. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/** The rule of an Idempotency-Key, as 400s state it (after the header's name and what is wrong). */
export const IDEMPOTENCY_KEY_RULE = `must be 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} visible ASCII characters (! to ~: no spaces, control or non-ASCII characters)`;

/** Idempotency-Key header: 1..{@link IDEMPOTENCY_KEY_MAX_CHARS} visible ASCII characters. */
export const IdempotencyKeySchema = z.string().regex(new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_CHARS}}$`), IDEMPOTENCY_KEY_RULE);
