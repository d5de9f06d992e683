/** Loop behaviour that only the Chat Completions adapter shows (the shared behaviour: loop-contract.test.ts). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { chatDriver } from '../support/adapter-drivers.js';

describe('runTurn over the Chat Completions adapter', () => {
  let ran = 0;
  const echo = defineWorkerTool({
    name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), executionMode: 'parallel', isReadOnly: true,
    describeActivity: (p) => `Echo ${p.text}`, execute: async (p) => (ran++, textResult(`echo:${p.text}`)),
  });

  it('does not run calls the server returns to the final request without tools; reports them in model.warning', async () => {
    ran = 0;
    const { result, events, requests } = await chatDriver.run({
      tools: [echo],
      maxSteps: 1,
      script: [{ calls: [{ name: 'echo', args: { text: '1' }, id: 'a1' }] }, { text: 'Final answer.', calls: [{ name: 'echo', args: { text: '2' }, id: 'a2' }] }],
    });
    expect(requests[1].tools).toEqual([]);
    expect(ran).toBe(1);
    expect(events.find((e) => e.type === 'model.warning')).toEqual({
      type: 'model.warning', code: 'tool_calls_ignored', call_ids: ['a2'], message: expect.stringContaining('not run'),
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'max_steps', outputText: 'Final answer.' });
    expect(result.transcript.filter((i) => i.type === 'function_call').map((i) => i.call_id)).toEqual(['a1']);
  });


  it('fails with max_steps (not empty_response) when that final answer has only calls', async () => {
    ran = 0;
    const { result, events } = await chatDriver.run({
      tools: [echo],
      maxSteps: 1,
      script: [{ calls: [{ name: 'echo', args: { text: '1' }, id: 'b1' }] }, { calls: [{ name: 'echo', args: { text: '2' }, id: 'b2' }] }],
    });
    expect(ran).toBe(1);
    expect(events.find((e) => e.type === 'model.warning')).toMatchObject({ code: 'tool_calls_ignored', call_ids: ['b2'] });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'max_steps', message: expect.stringMatching(/step limit/) } });
  });

  it('reports the turn\'s usage as null (unknown), not zeros, when the server sends no usage for a response', async () => {
    const { chatCall, chatText, startScriptedChatServer } = await import('../support/scripted-chat-server.js');
    const { createChatModel } = await import('../../src/model/chat-model.js');
    const { createOpenAIChatClient } = await import('../../src/model/openai-chat-client.js');
    const { runTurn } = await import('../../src/runtime/loop.js');
    const server = await startScriptedChatServer([{ toolCalls: [chatCall('echo', { text: 'a' }, { id: 'u1' })] }, chatText('done', { usage: null })]);
    const events: { type: string; usage?: unknown }[] = [];
    const result = await runTurn({
      turnId: 't', modelName: 'm', input: [{ type: 'message', role: 'user', content: 'go' }], tools: [echo], signal: new AbortController().signal,
      turnContext: {}, emit: (e) => void events.push(e), model: createChatModel(createOpenAIChatClient({ baseURL: server.baseURL, maxRetries: 0 })),
    });
    await server.close();
    expect(result).toMatchObject({ status: 'completed', usage: null });
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', usage: null });
  });
});
