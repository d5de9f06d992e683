/**
 * Chat Completions adapter, streaming assembly: `chat.completion.chunk`s → one assembled answer
 * (text, reasoning, tool calls, finish reason, usage). Pure; fed one chunk at a time.
 *
 * Tool calls are assembled by their delta `index`, robust to what servers really send:
 * - the call id repeated in every chunk of a call (same id → same call);
 * - every call sent with `index` 0 but a different id (a new id at a taken index → a new call);
 * - a delta with a name at an index whose call already has a name and complete JSON arguments →
 *   a new call (servers that send neither distinct indices nor ids);
 * - arguments only in the final chunk, or the whole call in one chunk;
 * - an empty `name` on a later delta (it never erases the name) and arguments sent as a JSON
 *   object instead of a string (JSON-encoded);
 * - a missing `index` (the delta belongs to the call with its id, else to the last call).
 * Missing ids stay missing here; src/model/chat-response.ts gives each call a unique id.
 *
 * Reasoning arrives as `delta.reasoning_content` (DeepSeek, older vLLM, llama.cpp, LM Studio) or
 * `delta.reasoning` (Ollama, OpenRouter, newer vLLM). One field is read per delta:
 * `reasoning_content` when it is a non-empty string, else `reasoning`. A delta carrying both holds
 * the same text twice, for clients of either name (servers keeping the old name beside the new one
 * after vLLM renamed `reasoning_content` to `reasoning` — vLLM's reasoning_outputs docs: "For now,
 * `reasoning_content` will continue to work" — and gateways that copy one field into the other), so
 * reading both would double it. The first field seen is remembered so the reasoning can be sent
 * back under that name. Only choice 0 is read. Usage is taken from the last chunk carrying one; one
 * whose counts are not both non-negative integers leaves it unknown (usage.ts).
 */
import { tokenUsage } from './usage.js';

/** A tool call as assembled from deltas (id may be missing; name may be empty if never sent). */
export interface AssembledCall {
  id?: string;
  name: string;
  arguments: string;
}

export interface AssembledAnswer {
  text: string;
  reasoning: string;
  /** The delta field reasoning came in, when any came. */
  reasoningField?: 'reasoning_content' | 'reasoning';
  calls: AssembledCall[];
  /** The last non-null `finish_reason` (undefined: none was sent — a cut stream). */
  finishReason?: string;
  /** Token counts from the last chunk with `usage` (undefined: the server sent none, or garbled counts). */
  usage?: { input_tokens: number; output_tokens: number };
}

/** What one chunk contributed, for streaming deltas to the client as they arrive. */
export interface ChunkDeltas {
  text?: string;
  reasoning?: string;
}

type Raw = Record<string, unknown>;

interface CallSlot extends AssembledCall {
  index?: number;
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Assembles one streamed answer. Feed every chunk to {@link push}; read {@link result} at the end. */
export class ChatAnswerAssembler {
  private text = '';
  private reasoning = '';
  private reasoningField?: 'reasoning_content' | 'reasoning';
  private readonly calls: CallSlot[] = [];
  /** The call currently open at each delta index. */
  private readonly open = new Map<number, CallSlot>();
  private finishReason?: string;
  private usage?: { input_tokens: number; output_tokens: number };

  /**
   * Take one chunk (the parsed `data:` JSON). Returns the text/reasoning it added (reasoning from one
   * field only, see the module doc).
   */
  push(chunk: unknown): ChunkDeltas {
    const c = (chunk ?? {}) as Raw;
    const u = c.usage as Raw | null | undefined;
    // A garbled report (null or text counts) makes the usage unknown, never zeros.
    if (u && typeof u === 'object') this.usage = tokenUsage(u.prompt_tokens, u.completion_tokens);
    const choices = Array.isArray(c.choices) ? (c.choices as Raw[]) : [];
    const choice = choices.find((ch) => (ch.index ?? 0) === 0);
    if (!choice) return {};
    const out: ChunkDeltas = {};
    const delta = (choice.delta ?? choice.message ?? {}) as Raw;
    const content = str(delta.content);
    if (content) {
      this.text += content;
      out.text = content;
    }
    const field = str(delta.reasoning_content) ? 'reasoning_content' : str(delta.reasoning) ? 'reasoning' : undefined;
    if (field) {
      const r = delta[field] as string;
      this.reasoning += r;
      this.reasoningField ??= field;
      out.reasoning = r;
    }
    if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls as Raw[]) this.toolDelta(tc);
    const finish = str(choice.finish_reason);
    if (finish) this.finishReason = finish;
    return out;
  }

  private toolDelta(tc: Raw): void {
    const fn = (tc.function ?? {}) as Raw;
    const id = str(tc.id);
    const name = str(fn.name);
    const args = typeof fn.arguments === 'string' ? fn.arguments : fn.arguments != null ? JSON.stringify(fn.arguments) : '';
    const index = typeof tc.index === 'number' ? tc.index : undefined;
    let slot = index !== undefined ? this.open.get(index) : id ? this.calls.find((s) => s.id === id) : this.calls.at(-1);
    if (slot && id && slot.id && slot.id !== id) slot = undefined; // another call at the same index
    if (slot && !id && name && slot.name && isCompleteJson(slot.arguments)) slot = undefined; // a new call, told apart by nothing else
    if (!slot) {
      slot = { name: '', arguments: '', ...(index !== undefined ? { index } : {}) };
      this.calls.push(slot);
      if (index !== undefined) this.open.set(index, slot);
    }
    if (id && !slot.id) slot.id = id;
    if (name && !slot.name) slot.name = name;
    slot.arguments += args;
  }

  /** The answer so far (complete once the stream ended). */
  result(): AssembledAnswer {
    return {
      text: this.text,
      reasoning: this.reasoning,
      ...(this.reasoningField ? { reasoningField: this.reasoningField } : {}),
      calls: this.calls.map((s) => ({ ...(s.id ? { id: s.id } : {}), name: s.name, arguments: s.arguments })),
      ...(this.finishReason ? { finishReason: this.finishReason } : {}),
      ...(this.usage ? { usage: { ...this.usage } } : {}),
    };
  }
}
