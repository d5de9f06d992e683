/**
 * Chat Completions adapter, messages: instructions + neutral transcript → Chat Completions
 * `messages`.
 *
 * Rules:
 * - Instructions and the system/developer messages before the first other item become ONE leading
 *   message (role `system`, or `developer` when the server takes it). Later system/developer
 *   messages (the runtime's nudges) are sent as `system` only when the server takes system
 *   messages anywhere; otherwise as `user` messages, because many chat templates (Gemma, Mistral)
 *   refuse a system message after the first turn.
 * - An assistant answer and the function calls after it become one assistant message with
 *   `tool_calls` (ids = the transcript's `call_id`s, names flattened as in chat-tools.ts), followed
 *   by exactly one `tool` message per call, in call order, wherever the outputs sit in the
 *   transcript. One message holds the calls of ONE round: a call that follows a tool output
 *   (`function_call_output`, `custom_tool_call_output`, `tool_search_output`) starts a new
 *   assistant message, so `user, call_1, output_1, call_2, output_2` is sent as
 *   `user, assistant[call_1], tool, assistant[call_2], tool` — as the server itself answered. A call without an output gets an `Error:` tool message; an output without a call is
 *   dropped. Arguments that are not valid JSON are sent as `{}` (servers that re-parse history
 *   answer 400 otherwise; the tool output already told the model what was wrong).
 * - Reasoning is sent back only on an assistant message that made tool calls (DeepSeek, Kimi and
 *   others answer 400 without it there), under the field it arrived in (`reasoning_content` unless
 *   the item says `reasoning`).
 * - Never an empty user turn: empty user messages are left out, and a history without any user
 *   text gets one user message {@link NO_USER_TEXT} (Ollama answers 500 otherwise).
 * - Items with no Chat Completions form (tool searches, other providers' items) are left out.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ContentPart, TranscriptItem } from './port.js';
import { flatToolName } from './chat-tools.js';

/** The user message sent when a history has no user text at all. */
export const NO_USER_TEXT = 'Continue.';

/** `providerData` key on a reasoning item: the delta field its text arrived in. */
export const REASONING_FIELD_KEY = 'chat_reasoning_field';

export interface ChatMessageOptions {
  /** Role of the leading instructions message [system]. */
  instructionsRole?: 'system' | 'developer';
  /** Send later system/developer messages as `system` (else as `user`) [false]. */
  systemAnywhere?: boolean;
}

type Msg = ChatCompletionMessageParam;
type ToolCallParam = { id: string; type: 'function'; function: { name: string; arguments: string } };
type Output = Extract<TranscriptItem, { type: 'function_call_output' | 'custom_tool_call_output' }>;

function textOf(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : p.type === 'refusal' ? p.refusal : '')).join('');
}

function userContent(content: string | ContentPart[]): Extract<Msg, { role: 'user' }>['content'] {
  if (typeof content === 'string' || !content.some((p) => p.type === 'image')) return textOf(content);
  return content.map((p) =>
    p.type === 'image'
      ? { type: 'image_url' as const, image_url: { url: p.url, ...(p.detail ? { detail: p.detail } : {}) } }
      : { type: 'text' as const, text: p.type === 'text' ? p.text : p.refusal },
  );
}

function outputText(o: Output): string {
  if (typeof o.output === 'string') return o.output;
  return o.output.map((p) => (p.type === 'text' ? p.text : p.type === 'refusal' ? p.refusal : '[image omitted: tool results carry text only here]')).join('');
}

/** Sent arguments per call item: items are the same objects from round to round, so each is checked once. */
const sentArguments = new WeakMap<object, string>();

function jsonOrEmpty(item: object, args: string): string {
  let sent = sentArguments.get(item);
  if (sent === undefined) {
    try {
      JSON.parse(args);
      sent = args;
    } catch {
      sent = '{}';
    }
    sentArguments.set(item, sent);
  }
  return sent;
}

/** Build the `messages` of one request. See the module doc for the rules. */
export function toChatMessages(instructions: string | undefined, input: TranscriptItem[], options: ChatMessageOptions = {}): Msg[] {
  const leadRole = options.instructionsRole ?? 'system';
  const lead: string[] = instructions ? [instructions] : [];
  let i = 0;
  for (; i < input.length; i++) {
    const it = input[i];
    if (it.type !== 'message' || (it.role !== 'system' && it.role !== 'developer')) break;
    const t = textOf(it.content);
    if (t) lead.push(t);
  }
  const outputs = new Map<string, Output>();
  for (const it of input) if ((it.type === 'function_call_output' || it.type === 'custom_tool_call_output') && !outputs.has(it.call_id)) outputs.set(it.call_id, it);

  const out: Msg[] = [];
  let text = '';
  let calls: ToolCallParam[] = [];
  let reasoning: { text: string; field: string } | undefined;
  /** A tool output came after the current calls: the round is over, the next call starts a new message. */
  let roundEnded = false;
  const flush = () => {
    if (calls.length > 0) {
      const msg = { role: 'assistant', content: text || null, tool_calls: calls } as Msg & Record<string, unknown>;
      if (reasoning?.text) msg[reasoning.field] = reasoning.text;
      out.push(msg);
      for (const c of calls) {
        const o = outputs.get(c.id);
        out.push({ role: 'tool', tool_call_id: c.id, content: o ? outputText(o) : 'Error: no output was recorded for this call.' });
      }
    } else if (text) out.push({ role: 'assistant', content: text });
    text = '';
    calls = [];
    reasoning = undefined;
    roundEnded = false;
  };
  for (; i < input.length; i++) {
    const it = input[i];
    switch (it.type) {
      case 'message': {
        if (it.role === 'assistant') {
          if (calls.length > 0) flush();
          text += textOf(it.content);
          break;
        }
        flush();
        if (it.role === 'user') {
          const content = userContent(it.content);
          if (typeof content === 'string' ? content.trim() !== '' : content.length > 0) out.push({ role: 'user', content });
        } else {
          const t = textOf(it.content);
          if (t) out.push({ role: options.systemAnywhere ? leadRole : 'user', content: t } as Msg);
        }
        break;
      }
      case 'reasoning': {
        if (calls.length > 0) flush();
        const field = it.providerData?.[REASONING_FIELD_KEY] === 'reasoning' ? 'reasoning' : 'reasoning_content';
        const t = it.summary.join('\n');
        reasoning = { text: (reasoning?.text ? `${reasoning.text}\n` : '') + t, field };
        break;
      }
      case 'function_call':
        if (roundEnded) flush();
        calls.push({ id: it.call_id, type: 'function', function: { name: flatToolName(it.name, it.namespace), arguments: jsonOrEmpty(it, it.arguments) } });
        break;
      case 'custom_tool_call':
        if (roundEnded) flush();
        calls.push({ id: it.call_id, type: 'function', function: { name: it.name, arguments: JSON.stringify({ input: it.input }) } });
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'tool_search_output':
        if (calls.length > 0) roundEnded = true; // outputs travel with their calls; they only end the round
        break;
      default:
        break; // tool searches and provider items have no chat form
    }
  }
  flush();
  if (!out.some((m) => m.role === 'user' && (typeof m.content === 'string' ? m.content.trim() !== '' : (m.content?.length ?? 0) > 0))) {
    out.unshift({ role: 'user', content: NO_USER_TEXT });
  }
  if (lead.length > 0) out.unshift({ role: leadRole, content: lead.join('\n\n') } as Msg);
  return out;
}
