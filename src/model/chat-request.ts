/**
 * Chat Completions adapter, requests: a neutral {@link ModelRequest} → `chat.completions.create`
 * params (`stream: true`, `stream_options.include_usage`, `max_tokens`).
 *
 * Nothing is left to the server that the client can enforce: `tool_choice` and
 * `parallel_tool_calls` are sent only when the configured server accepts them
 * ({@link ChatServerFeatures}, README "Model endpoints"). A request whose `toolChoice` is `none`
 * (the final "answer without tools" request) is sent WITHOUT `tools` — plus `tool_choice: "none"`
 * where accepted — and any call the server still returns is not run (chat-response.ts). Sequential
 * tools are serialized by the runtime's dispatcher whatever the server does.
 */
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { toChatMessages } from './chat-messages.js';
import { toChatTools, type ChatToolSet } from './chat-tools.js';
import type { ModelRequest } from './port.js';

/** What the configured server accepts beyond the common core. All false by default. */
export interface ChatServerFeatures {
  /** `tool_choice: "auto" | "required"` alongside `tools`. */
  toolChoice: boolean;
  /** `tool_choice: "none"` on a request without `tools`. */
  toolChoiceNone: boolean;
  /** `parallel_tool_calls`. */
  parallelToolCalls: boolean;
  /** The `developer` role for instructions. */
  developerRole: boolean;
  /** System messages after the first turn (else they are sent as user messages). */
  systemAnywhere: boolean;
}

/** The names accepted in `MODEL_CHAT_FEATURES`, mapped to their {@link ChatServerFeatures} key. */
export const CHAT_FEATURE_NAMES = {
  tool_choice: 'toolChoice',
  tool_choice_none: 'toolChoiceNone',
  parallel_tool_calls: 'parallelToolCalls',
  developer_role: 'developerRole',
  system_anywhere: 'systemAnywhere',
} as const satisfies Record<string, keyof ChatServerFeatures>;

export type ChatFeatureName = keyof typeof CHAT_FEATURE_NAMES;

/** Features from a list of names (e.g. `MODEL_CHAT_FEATURES` split on commas); unknown names throw. */
export function chatFeatures(names: readonly string[] = []): ChatServerFeatures {
  const f: ChatServerFeatures = { toolChoice: false, toolChoiceNone: false, parallelToolCalls: false, developerRole: false, systemAnywhere: false };
  for (const n of names) {
    const key = CHAT_FEATURE_NAMES[n as ChatFeatureName];
    if (!key) throw new Error(`unknown chat server feature "${n}"; known: ${Object.keys(CHAT_FEATURE_NAMES).join(', ')}`);
    f[key] = true;
  }
  return f;
}

/** The params of one request and the tool set it offered (to map called names back). */
export interface ChatRequestPlan {
  params: ChatCompletionCreateParamsStreaming;
  tools: ChatToolSet;
  /** Whether any tool was offered (calls in an answer to a request without tools are not run). */
  toolsOffered: boolean;
}

export function toChatRequest(r: ModelRequest, features: ChatServerFeatures): ChatRequestPlan {
  const messages = toChatMessages(r.instructions, r.input, {
    instructionsRole: features.developerRole ? 'developer' : 'system',
    systemAnywhere: features.systemAnywhere,
  });
  const params: ChatCompletionCreateParamsStreaming = { model: r.model, messages, stream: true, stream_options: { include_usage: true } };
  const tools = toChatTools(r.toolChoice === 'none' ? [] : r.tools);
  const toolsOffered = tools.tools.length > 0;
  if (toolsOffered) {
    params.tools = tools.tools;
    if (features.toolChoice) params.tool_choice = r.toolChoice;
    if (features.parallelToolCalls && r.parallelToolCalls !== undefined) params.parallel_tool_calls = r.parallelToolCalls;
  } else if (r.toolChoice === 'none' && features.toolChoiceNone) {
    params.tool_choice = 'none';
  }
  if (r.maxOutputTokens !== undefined) params.max_tokens = r.maxOutputTokens;
  return { params, tools, toolsOffered };
}
