/**
 * Tool-call markup written as text: some models (or a server whose chat template does not turn
 * their output into tool calls) write a call into the answer — `<tool_call>{…}</tool_call>`,
 * `<function=name>{…}</function>`, `[TOOL_CALLS]…`, or a JSON object naming a tool and its
 * arguments as the whole answer. Text is never run as a call. A final answer that looks like this
 * gets ONE developer nudge ({@link TOOL_CALL_TEXT_NUDGE}) to use a real function call or answer
 * in plain language; a second such answer is accepted as the answer. Pure.
 */

/** Sent (role developer) once when a final answer was tool-call markup. */
export const TOOL_CALL_TEXT_NUDGE =
  'Your last answer contained a tool call written as text (markup or JSON). Text is never executed. ' +
  'If you need a tool, call it with a real function call; otherwise answer the user in plain language.';

const MARKUP: readonly { format: string; pattern: RegExp }[] = [
  { format: '<tool_call>', pattern: /<\s*(tool_call|tool_calls|function_call|tool_use|toolcall)\b[^>]*>/i },
  { format: '<function=…>', pattern: /<function=[\w.-]+>/i },
  { format: '[TOOL_CALLS]', pattern: /\[TOOL_CALLS\]/ },
  { format: '<|tool_call|>', pattern: /<\|(tool_call|tool_calls_begin|tool_calls_section_begin|python_tag)[^|>]*\|>/i },
];

/** Longest answer parsed as JSON, characters (longer ones are not a bare call). */
const MAX_JSON_CHARS = 64 * 1024;

function unfence(text: string): string {
  const t = text.trim();
  if (!t.startsWith('```')) return t;
  const body = t.slice(3).replace(/^[\w-]*\n?/, '');
  const end = body.lastIndexOf('```');
  return (end >= 0 ? body.slice(0, end) : body).trim();
}

const ARG_KEYS = ['arguments', 'parameters', 'args', 'input'];

/** True for `{name|tool|function: <a tool>, arguments|parameters|args|input: …}` (also `{function: {name, arguments}}`). */
function namesATool(value: unknown, tools: ReadonlySet<string>): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.tool_calls)) return o.tool_calls.some((c) => namesATool(c, tools));
  if (o.function && typeof o.function === 'object') return namesATool(o.function, tools);
  const name = [o.name, o.tool, o.tool_name, o.function].find((v) => typeof v === 'string') as string | undefined;
  return name !== undefined && tools.has(name) && ARG_KEYS.some((k) => k in o);
}

/**
 * The format of tool-call markup in `text`, or null when there is none.
 * @param tools names and identities (`namespace.name`) of the turn's tools, for the bare-JSON form.
 */
export function detectToolCallText(text: string, tools: ReadonlySet<string>): string | null {
  for (const m of MARKUP) if (m.pattern.test(text)) return m.format;
  const body = unfence(text);
  if (body.length > MAX_JSON_CHARS || !(body.startsWith('{') || body.startsWith('['))) return null;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const items = Array.isArray(value) ? value : [value];
  return items.length > 0 && items.every((v) => namesATool(v, tools)) ? 'JSON tool call' : null;
}

export type ToolCallTextDecision = { type: 'accept' } | { type: 'nudge'; instruction: string; format: string };

/** Nudge once (`alreadyNudged` false) when the final answer is tool-call markup; else accept. */
export function decideToolCallText(alreadyNudged: boolean, text: string, tools: ReadonlySet<string>): ToolCallTextDecision {
  if (alreadyNudged) return { type: 'accept' };
  const format = detectToolCallText(text, tools);
  return format ? { type: 'nudge', instruction: TOOL_CALL_TEXT_NUDGE, format } : { type: 'accept' };
}
