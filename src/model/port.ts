/**
 * The model port: the service's own, provider-neutral view of a model. The runtime (src/runtime/)
 * speaks only these types; an adapter maps them to one wire protocol (the Responses adapter in
 * src/model/responses-*.ts; a Chat Completions adapter can sit beside it).
 *
 * Items are plain JSON (they are stored in checkpoints and transcripts). Field names follow the
 * service's event JSON (`call_id`, snake_case). `providerData` holds fields an adapter needs to
 * round-trip an item it produced (ids, statuses, annotations…); other adapters ignore it and the
 * runtime never reads it.
 */
import type { JsonObject } from '../runtime/json.js';

/** Extra fields an adapter keeps on an item it produced; opaque to everyone else. */
export type ProviderData = Record<string, unknown>;

/** A part of a message or tool output. Images are URLs (`data:` URLs included). */
export type ContentPart =
  | { type: 'text'; text: string; providerData?: ProviderData }
  | { type: 'image'; url: string; detail?: 'auto' | 'low' | 'high' }
  | { type: 'refusal'; refusal: string };

/** A message: input from the user/system/developer, or the assistant's answer. */
export interface MessageItem {
  type: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | ContentPart[];
  providerData?: ProviderData;
}

/** A function call the model made. `namespace` must be kept when the call is sent back. */
export interface FunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  namespace?: string;
  /** Raw arguments text, as the model produced it (may be malformed). */
  arguments: string;
  providerData?: ProviderData;
}

/** The one answer to a {@link FunctionCallItem} with the same `call_id`. */
export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string | ContentPart[];
  providerData?: ProviderData;
}

/** Model reasoning; `encrypted_content` is passed back unchanged in stateless conversations. */
export interface ReasoningItem {
  type: 'reasoning';
  /** Summary texts, in order. */
  summary: string[];
  encrypted_content?: string | null;
  providerData?: ProviderData;
}

/** A tool search the model asked the client to run (`execution: 'client'`) or ran hosted. */
export interface ToolSearchCallItem {
  type: 'tool_search_call';
  call_id: string | null;
  arguments: unknown;
  execution: 'client' | 'server';
  providerData?: ProviderData;
}

/** The tools a tool search loaded (answer to a {@link ToolSearchCallItem}). */
export interface ToolSearchOutputItem {
  type: 'tool_search_output';
  call_id: string | null;
  execution: 'client' | 'server';
  status: 'completed';
  tools: ToolDefinition[];
  providerData?: ProviderData;
}

/** A call of a custom (grammar) tool; none are offered, but one still gets exactly one output. */
export interface CustomToolCallItem {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  input: string;
  providerData?: ProviderData;
}

export interface CustomToolCallOutputItem {
  type: 'custom_tool_call_output';
  call_id: string;
  output: string;
  providerData?: ProviderData;
}

/**
 * An output item the runtime does not interpret (e.g. a hosted tool's call record). The adapter
 * that produced it (`provider`) sends it back as it was; other adapters drop it.
 */
export interface ProviderItem {
  type: 'provider_item';
  provider: string;
  item: Record<string, unknown>;
}

/** One item of a conversation transcript (input and output alike). */
export type TranscriptItem =
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | ReasoningItem
  | ToolSearchCallItem
  | ToolSearchOutputItem
  | CustomToolCallItem
  | CustomToolCallOutputItem
  | ProviderItem;

/** A function tool offered to the model. `parameters` is a JSON Schema object. */
export interface FunctionToolDefinition {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonObject;
  /** Strict schema adherence (false unless the tool asks for it). */
  strict: boolean;
  /** Hosted tool search only: sent but loaded by the provider on demand. */
  defer_loading?: boolean;
}

/** A group of function tools called as `namespace.name`. */
export interface NamespaceToolDefinition {
  type: 'namespace';
  name: string;
  description: string;
  tools: FunctionToolDefinition[];
}

/** The provider's own tool search over deferred tools (hosted mode). */
export interface HostedToolSearchDefinition {
  type: 'tool_search';
}

/** The tools of one request, in the order the runtime chose (deterministic, for caching). */
export type ToolDefinition = FunctionToolDefinition | NamespaceToolDefinition | HostedToolSearchDefinition;

/** Token usage of one response. */
export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
}

/**
 * One model request. `input` is always the WHOLE transcript; an adapter that can continue a
 * stored provider conversation may use `continuation` to send only the items after
 * `continuation.coveredItems` (that is an adapter concern — the runtime never trims input).
 */
export interface ModelRequest {
  model: string;
  instructions?: string;
  input: TranscriptItem[];
  tools: ToolDefinition[];
  /** `none`: the model must answer without calling tools (tools stay listed for context). */
  toolChoice: 'auto' | 'required' | 'none';
  /** Max output tokens of this response (unset: provider default). */
  maxOutputTokens?: number;
  /** Whether the model may emit several calls in one response (unset: provider default). */
  parallelToolCalls?: boolean;
  /** The last response of this conversation and how many items of `input` it already covers. */
  continuation?: { responseId: string; coveredItems: number };
}

/** Final status of a response. `incomplete`: cut short (`incomplete_reason` says why). */
export type ModelResponseStatus = 'completed' | 'incomplete' | 'failed';

/**
 * What a model stream yields, in order: optionally `response.started`, any number of
 * `text.delta`, `reasoning.delta`, `warning` and `item.done`, then exactly one `response.done` (or an `error`). A stream that
 * ends without either is treated as cut (`stream_interrupted`).
 */
export type ModelStreamEvent =
  | { type: 'response.started'; response_id?: string }
  | { type: 'text.delta'; text: string }
  /** Reasoning text as it streams (Chat Completions: `reasoning_content` / `reasoning` deltas; Responses: reasoning summary deltas). */
  | { type: 'reasoning.delta'; text: string }
  /** Something the client should know that does not fail the response (e.g. calls the adapter did not pass on). */
  /** `tool_names`: the names the dropped calls used, in order (for the turn's ending message; not part of the public event). */
  | { type: 'warning'; code: 'tool_calls_ignored'; message: string; call_ids: string[]; tool_names: string[] }
  /** A completed output item; `index` orders items within the response. */
  | { type: 'item.done'; index: number; item: TranscriptItem }
  | {
      type: 'response.done';
      status: ModelResponseStatus;
      response_id?: string;
      usage?: ModelUsage;
      /** For `incomplete`: `max_output_tokens`, `content_filter`, … */
      incomplete_reason?: string;
      /** For `failed`. */
      error?: { code: string; message: string };
      /** The response's items, used when no `item.done` events were streamed. */
      items?: TranscriptItem[];
    }
  | { type: 'error'; code: string; message: string };

/**
 * A model. `signal` is the turn's: an implementation links its own per-request controller to it
 * and unlinks it when the request ends (never leave a listener on the turn's signal).
 *
 * Contract: yield {@link ModelStreamEvent}s in order; on a provider or transport failure throw a
 * {@link ModelError} carrying the provider's code; when `signal` aborts, stop quietly (end the
 * iteration or throw — the runtime checks the signal).
 */
export interface ModelPort {
  /**
   * The model endpoint this port sends its requests to, as error messages name it — without
   * credentials (model-error.ts `endpointForDisplay`), e.g. `http://127.0.0.1:8000/v1`; undefined
   * for a port without one (an in-process model). Decorators pass it on; the runtime names it in
   * the errors it makes of the port's stream (src/runtime/model-response.ts).
   */
  readonly endpoint?: string;
  stream(request: ModelRequest, signal: AbortSignal, options?: ModelStreamOptions): AsyncIterable<ModelStreamEvent>;
}

/**
 * Per-request hooks, for decorators of a {@link ModelPort} and the runtime; a decorator passes
 * them on. `onActivity` is called, synchronously, for every event received from the provider —
 * every SSE event of a Responses stream, every chunk of a Chat Completions stream — including the
 * many an adapter does not yield (`response.in_progress`, `function_call_arguments.delta`,
 * tool-call chunks, …), and for every SSE comment line (keep-alives such as OpenRouter's
 * `: OPENROUTER PROCESSING` while a model has not started answering): the idle time limit of
 * stream-timeouts.ts counts liveness by it, so a long tool call whose arguments stream for
 * minutes, or a slow start behind a proxy that keeps the connection alive, is not mistaken for a
 * stalled model; and the runtime counts by it whether the provider sent anything at all
 * (src/runtime/model-response.ts; comment lines count there too). A port that does not call it is
 * still correct; then only yielded events count as activity.
 */
export interface ModelStreamOptions {
  onActivity?: () => void;
  /**
   * More secret values to remove from this request's errors, besides those the service's
   * error-cleaning decorator knows itself (src/model/clean-errors.ts `withCleanErrors`): a turn
   * passes every SKILL_SECRETS value it has seen (src/skills/turn-secrets.ts `withTurnSecrets`),
   * so a value rotated out of the file during the turn is still removed. `name` is the setting's
   * name, shown as `[redacted:<name>]`. Called when an error is cleaned; must not throw.
   */
  secrets?: () => readonly { name: string; value: string }[];
}

export { ModelError } from './model-error.js';
