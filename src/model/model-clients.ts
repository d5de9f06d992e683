/**
 * The model clients of the service, one per wire protocol (`MODEL_API`, a request's `model_api`),
 * built from config: the Responses adapter and the Chat Completions adapter, both on the same
 * endpoint (`OPENAI_BASE_URL`, `OPENAI_API_KEY`). Configured when OPENAI_API_KEY or
 * OPENAI_BASE_URL is set (local servers such as vLLM or Ollama need only the base URL). Both are
 * wrapped in the idle/request time limits of stream-timeouts.ts, and both send their requests with
 * {@link modelFetch} (undici's own fetch and dispatcher, see model-fetch.ts).
 */
import type { Config, ModelApi } from '../config.js';
import { createChatModel } from './chat-model.js';
import { chatFeatures } from './chat-request.js';
import { createOpenAIChatClient } from './openai-chat-client.js';
import { createOpenAIResponsesClient } from './openai-responses-client.js';
import { modelFetch } from './model-fetch.js';
import type { ModelPort } from './port.js';
import { createResponsesModel } from './responses-model.js';
import { withStreamTimeouts } from './stream-timeouts.js';

/** A model client per wire protocol; a missing one is not available. */
export type ModelClients = Partial<Record<ModelApi, ModelPort>>;

/** Both clients from config, or undefined when no endpoint is configured. */
export function modelClientsFromConfig(config: Config): ModelClients | undefined {
  if (!config.OPENAI_API_KEY && !config.OPENAI_BASE_URL) return undefined;
  const endpoint = { apiKey: config.OPENAI_API_KEY, baseURL: config.OPENAI_BASE_URL, maxRetries: config.MODEL_MAX_RETRIES, timeoutMs: config.MODEL_REQUEST_TIMEOUT_MS, fetch: modelFetch };
  const timeouts = { idleMs: config.MODEL_IDLE_TIMEOUT_MS, requestMs: config.MODEL_REQUEST_TIMEOUT_MS, retries: config.MODEL_MAX_RETRIES };
  return {
    responses: withStreamTimeouts(createResponsesModel(createOpenAIResponsesClient(endpoint), { conversationMode: config.CONVERSATION_MODE }), timeouts),
    chat: withStreamTimeouts(createChatModel(createOpenAIChatClient(endpoint), { features: chatFeatures(config.MODEL_CHAT_FEATURES) }), timeouts),
  };
}

/**
 * The client for a turn: the one of `api` when the turn names one, else `fallback` (the client
 * of MODEL_API). Undefined when that protocol has no client.
 */
export function modelFor(clients: ModelClients | undefined, fallback: ModelPort | undefined, api: ModelApi | undefined): ModelPort | undefined {
  return api === undefined ? fallback : clients?.[api];
}
