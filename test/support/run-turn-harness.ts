/**
 * Test harness: run `runTurn` through the real `openai` SDK against a scripted Responses server.
 *
 * ```ts
 * const { result, events, server } = await runScriptedTurn({
 *   script: [{ output: [functionCall('echo', { text: 'hi' })] }, { output: [message('done')] }],
 *   tools: [echoTool],
 * });
 * ```
 * The server is closed before returning (its `requests` stay readable).
 */
import type { TurnEvent } from '../../src/runtime/events.js';
import { runTurn } from '../../src/runtime/loop.js';
import type { AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import type { RunTurnOptions, RunTurnResult, RuntimeOptions, TranscriptItem } from '../../src/runtime/turn-types.js';
import { createOpenAIResponsesClient } from '../../src/model/openai-responses-client.js';
import { createResponsesModel, type ResponsesModelOptions } from '../../src/model/responses-model.js';
import { startScriptedResponsesServer, type ScriptEntry, type ScriptedResponsesServer } from './scripted-responses-server.js';

export interface ScriptedTurnInput extends Partial<Omit<RunTurnOptions, 'model' | 'emit' | 'tools' | 'input' | 'options'>> {
  /** Runtime options, plus the Responses adapter's conversation mode. */
  options?: RuntimeOptions & ResponsesModelOptions;
  script: ScriptEntry[];
  tools?: AnyWorkerAgentTool[];
  input?: TranscriptItem[];
  /** SDK retries [0]. */
  maxRetries?: number;
  /** Called with each event as it is emitted (after it is recorded). */
  onEvent?: (event: TurnEvent) => void | Promise<void>;
}

export interface ScriptedTurnOutput {
  result: RunTurnResult;
  events: TurnEvent[];
  server: ScriptedResponsesServer;
}

export async function runScriptedTurn(input: ScriptedTurnInput): Promise<ScriptedTurnOutput> {
  const server = await startScriptedResponsesServer(input.script);
  const events: TurnEvent[] = [];
  try {
    const transport = createOpenAIResponsesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: input.maxRetries ?? 0 });
    const model = createResponsesModel(transport, { conversationMode: input.options?.conversationMode });
    const result = await runTurn({
      turnId: input.turnId ?? 'turn_test',
      modelName: input.modelName ?? 'test-model',
      input: input.input ?? [{ type: 'message', role: 'user', content: 'hello' }],
      signal: input.signal ?? new AbortController().signal,
      turnContext: input.turnContext ?? {},
      ...input,
      tools: input.tools ?? [],
      model,
      emit: async (e) => {
        events.push(e);
        await input.onEvent?.(e);
      },
    });
    return { result, events, server };
  } finally {
    await server.close();
  }
}
