/**
 * Responses adapter, items: neutral {@link TranscriptItem}s ⇄ Responses API input/output items.
 *
 * Round trip rule: an item the adapter produced from a Responses output item is sent back as it
 * was completed (fields the neutral item does not model travel in `providerData`), so a reasoning
 * item with `encrypted_content` is passed back unchanged. Output item types the runtime does not
 * interpret become `provider_item`s and are sent back as they were.
 *
 * Function calls are the exception: they are sent back with only what the API reads — `type`,
 * `call_id`, `name`, `arguments` and `namespace` (a namespaced call without it is refused:
 * "Missing namespace for function_call …", captured in
 * ../shared/fixtures/openai-responses/openai-missing-function-call-namespace-error.1.json) —
 * and their item `id` only where it pairs them with the reasoning item sent just before them
 * (same response): the API refuses a reasoning item "without its required following item" and a
 * `fc_` id whose reasoning is missing. `status` and the id elsewhere are dropped: on a long turn
 * in stateless mode, where every request carries the whole transcript, they made requests about
 * a quarter larger for nothing.
 */
import type { ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import { appendMemo } from './append-memo.js';
import type { ContentPart, ProviderData, ToolDefinition, TranscriptItem } from './port.js';

/** The `provider` name of {@link ProviderItem}s made by this adapter. */
export const RESPONSES_PROVIDER = 'openai-responses';

type Raw = Record<string, unknown>;

function rest(raw: Raw, keys: string[]): ProviderData | undefined {
  const out: ProviderData = {};
  for (const [k, v] of Object.entries(raw)) if (!keys.includes(k) && v !== undefined) out[k] = v;
  return Object.keys(out).length > 0 ? out : undefined;
}

function withData<T extends object>(item: T, data: ProviderData | undefined): T {
  return data ? { ...item, providerData: data } : item;
}

function partsFromOutput(content: unknown): ContentPart[] {
  if (!Array.isArray(content)) return [];
  return content.map((c: Raw) =>
    c.type === 'refusal'
      ? { type: 'refusal', refusal: String(c.refusal ?? '') }
      : withData({ type: 'text', text: String(c.text ?? '') }, rest(c, ['type', 'text'])),
  );
}

/** A completed Responses output item (`response.output_item.done`) as a neutral item. */
export function fromResponsesOutputItem(item: ResponseOutputItem): TranscriptItem {
  const raw = item as unknown as Raw;
  switch (raw.type) {
    case 'message':
      return withData({ type: 'message', role: 'assistant', content: partsFromOutput(raw.content) }, rest(raw, ['type', 'role', 'content']));
    case 'function_call':
      return withData(
        {
          type: 'function_call',
          call_id: String(raw.call_id ?? ''),
          name: String(raw.name ?? ''),
          ...(typeof raw.namespace === 'string' && raw.namespace ? { namespace: raw.namespace } : {}),
          arguments: typeof raw.arguments === 'string' ? raw.arguments : JSON.stringify(raw.arguments ?? {}),
        },
        rest(raw, ['type', 'call_id', 'name', 'namespace', 'arguments']),
      );
    case 'reasoning': {
      const summary = Array.isArray(raw.summary) ? raw.summary.map((s: Raw) => String(s.text ?? '')) : [];
      return withData(
        { type: 'reasoning', summary, ...('encrypted_content' in raw ? { encrypted_content: raw.encrypted_content as string | null } : {}) },
        rest(raw, ['type', 'summary', 'encrypted_content']),
      );
    }
    case 'tool_search_call':
      return withData(
        {
          type: 'tool_search_call',
          call_id: (raw.call_id as string | null) ?? null,
          arguments: raw.arguments ?? {},
          execution: raw.execution === 'client' ? 'client' : 'server',
        },
        rest(raw, ['type', 'call_id', 'arguments', 'execution']),
      );
    case 'custom_tool_call':
      return withData(
        { type: 'custom_tool_call', call_id: String(raw.call_id ?? ''), name: String(raw.name ?? ''), input: String(raw.input ?? '') },
        rest(raw, ['type', 'call_id', 'name', 'input']),
      );
    default:
      return { type: 'provider_item', provider: RESPONSES_PROVIDER, item: raw };
  }
}

function outputParts(parts: ContentPart[]): Raw[] {
  return parts.map((p) =>
    p.type === 'refusal'
      ? { type: 'refusal', refusal: p.refusal }
      : { annotations: [], ...(p.type === 'text' ? p.providerData : {}), type: 'output_text', text: p.type === 'text' ? p.text : '' },
  );
}

function inputParts(parts: ContentPart[]): Raw[] {
  return parts.map((p) =>
    p.type === 'image'
      ? { type: 'input_image', image_url: p.url, detail: p.detail ?? 'auto' }
      : { type: 'input_text', text: p.type === 'text' ? p.text : p.refusal },
  );
}

/** Conversions of tool lists already made, per list object (a turn offers the same list every round). */
const convertedTools = new WeakMap<readonly ToolDefinition[], Raw[]>();

/**
 * Tool definitions are already in the Responses shape (see port.ts); copied for safety, once per
 * list object: the same list gives the same result (never changed), so its JSON can be reused
 * (responses-body.ts).
 */
export function toResponsesTools(tools: readonly ToolDefinition[]): Raw[] {
  let out = convertedTools.get(tools);
  if (!out) {
    out = tools.map((t) => ({ ...t }) as Raw);
    convertedTools.set(tools, out);
  }
  return out;
}

/**
 * Conversions already made, per transcript item object and pairing (`[unpaired, paired]`). A
 * turn sends its whole transcript with every request, so without this each round would convert
 * every earlier item again (quadratic in the turn's length). Transcript items are never mutated
 * once appended (the loop only appends), and the converted items are only serialized, so reusing
 * one object is safe; entries go away with their items (WeakMap).
 */
const converted = new WeakMap<TranscriptItem, [ResponseInputItem | undefined | null, ResponseInputItem | undefined | null]>();

function cachedInputItem(item: TranscriptItem, paired: boolean): ResponseInputItem | undefined {
  let entry = converted.get(item);
  if (!entry) converted.set(item, (entry = [null, null]));
  const slot = paired ? 1 : 0;
  const hit = entry[slot];
  if (hit !== null) return hit;
  return (entry[slot] = toResponsesInputItem(item, paired));
}

/**
 * A neutral item as a Responses `input` item, or undefined when it cannot be sent (a
 * `provider_item` from another adapter). `pairedWithReasoning`: the item follows a reasoning item
 * of its own response in the input (a function call then keeps its item id; see the module doc).
 */
export function toResponsesInputItem(item: TranscriptItem, pairedWithReasoning = false): ResponseInputItem | undefined {
  const data = (item as { providerData?: ProviderData }).providerData ?? {};
  let raw: Raw;
  switch (item.type) {
    case 'message':
      if (typeof item.content === 'string') raw = { type: 'message', role: item.role, content: item.content };
      else if (item.role === 'assistant') raw = { ...data, type: 'message', role: 'assistant', content: outputParts(item.content) };
      else raw = { type: 'message', role: item.role, content: inputParts(item.content) };
      break;
    case 'function_call':
      raw = {
        type: 'function_call',
        ...(pairedWithReasoning && typeof data.id === 'string' ? { id: data.id } : {}),
        call_id: item.call_id,
        name: item.name,
        ...(item.namespace ? { namespace: item.namespace } : {}),
        arguments: item.arguments,
      };
      break;
    case 'function_call_output':
      raw = { type: 'function_call_output', call_id: item.call_id, output: typeof item.output === 'string' ? item.output : inputParts(item.output) };
      break;
    case 'reasoning':
      // Only reasoning this adapter produced (it carries the Responses item id) can be sent back;
      // another adapter's reasoning (Chat Completions `reasoning_content`) has no Responses form.
      if (typeof data.id !== 'string') return undefined;
      raw = {
        ...data,
        type: 'reasoning',
        summary: item.summary.map((text) => ({ type: 'summary_text', text })),
        ...(item.encrypted_content !== undefined ? { encrypted_content: item.encrypted_content } : {}),
      };
      break;
    case 'tool_search_call':
      raw = { ...data, type: 'tool_search_call', call_id: item.call_id, arguments: item.arguments, execution: item.execution };
      break;
    case 'tool_search_output':
      raw = { type: 'tool_search_output', call_id: item.call_id, execution: item.execution, status: item.status, tools: toResponsesTools(item.tools) };
      break;
    case 'custom_tool_call':
      raw = { ...data, type: 'custom_tool_call', call_id: item.call_id, name: item.name, input: item.input };
      break;
    case 'custom_tool_call_output':
      raw = { type: 'custom_tool_call_output', call_id: item.call_id, output: item.output };
      break;
    case 'provider_item':
      if (item.provider !== RESPONSES_PROVIDER) return undefined;
      raw = item.item;
      break;
  }
  return raw as unknown as ResponseInputItem;
}

/** Items a model response produces; anything else (user input, tool outputs) starts a new run. */
const MODEL_OUTPUT = new Set(['reasoning', 'function_call', 'custom_tool_call', 'tool_search_call', 'provider_item']);
const isModelOutput = (i: TranscriptItem) => MODEL_OUTPUT.has(i.type) || (i.type === 'message' && i.role === 'assistant');

/**
 * The input built so far (shared by the memo and its callers, never changed once returned; not
 * frozen, as V8 copies frozen arrays some fifty times slower), and whether a reasoning item was
 * sent since the last input item.
 */
interface InputSoFar {
  out: readonly ResponseInputItem[];
  afterReasoning: boolean;
}

/**
 * Conversion of whole transcripts, extended from the previous request's (append-memo.ts): each
 * round's transcript starts with the last one's items, so only the new ones are converted.
 */
const inputs = appendMemo<TranscriptItem, InputSoFar>({ out: [], afterReasoning: false }, (acc, items, from) => {
  const out = acc.out.slice();
  let afterReasoning = acc.afterReasoning;
  for (let k = from; k < items.length; k++) {
    const i = items[k];
    if (!isModelOutput(i)) afterReasoning = false;
    const r = cachedInputItem(i, afterReasoning);
    if (!r) continue;
    out.push(r);
    if (i.type === 'reasoning') afterReasoning = true;
  }
  return { out, afterReasoning };
});

/**
 * Map a transcript to Responses `input` (items another adapter produced are left out). The
 * result may be shared with later calls: it must not be changed.
 */
export function toResponsesInput(items: readonly TranscriptItem[]): ResponseInputItem[] {
  return inputs.over(items).out as ResponseInputItem[];
}
