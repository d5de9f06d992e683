import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileTool } from '../../src/runtime/compiled-tool.js';
import { rankDeferredTools } from '../../src/runtime/tool-search.js';
import { defineWorkerTool, textResult, type AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message } from '../support/scripted-responses-server.js';

function tool(name: string, description: string, extra: Record<string, unknown> = {}): AnyWorkerAgentTool {
  return defineWorkerTool({
    name, description, schema: z.object({ location: z.string(), unit: z.enum(['celsius', 'fahrenheit']).optional() }),
    executionMode: 'parallel', isReadOnly: true, describeActivity: (p) => `${name} ${p.location}`,
    execute: async (p) => textResult(`${name}(${p.location},${p.unit ?? '-'})`), ...extra,
  });
}

const weather = tool('get_weather', 'Get the current weather at a specific location', { deferLoading: true });
const files = tool('search_files', 'Search through files in the workspace', { deferLoading: true });
const mail = tool('send', 'Send an email message', { deferLoading: true, namespace: 'mail' });
const visible = tool('lookup', 'Look something up');

describe('client tool search', () => {
  it('ranks deferred tools by name, namespace and description', () => {
    const ranked = rankDeferredTools('current weather for Paris', [files, weather, mail].map(compileTool));
    expect(ranked.map((c) => c.identity)).toEqual(['get_weather']);
    expect(rankDeferredTools('send mail', [files, weather, mail].map(compileTool))[0].identity).toBe('mail.send');
    expect(rankDeferredTools('zzz nothing', [files, weather].map(compileTool))).toEqual([]);
  });

  it('keeps deferred tools out, loads the chosen one via tool_search, and offers it in the following requests', async () => {
    const { server, result, events } = await runScriptedTurn({
      tools: [visible, weather, files, mail],
      script: [
        { output: [functionCall('tool_search', { query: 'weather' }, { callId: 's1' })] },
        { output: [functionCall('get_weather', { location: 'Paris' }, { callId: 'w1' })] },
        { output: [message('It is mild.')] },
      ],
    });
    const names = (i: number) => server.requests[i].body.tools.map((t: any) => t.name);
    expect(names(0)).toEqual(['lookup', 'tool_search']);
    expect(names(1)).toEqual(['get_weather', 'lookup', 'tool_search']);
    expect(names(2)).toEqual(names(1));
    const searchOut = server.requests[1].body.input.at(-1);
    expect(searchOut.call_id).toBe('s1');
    expect(searchOut.output).toMatch(/^Loaded 1 tool\(s\).*\n- get_weather: Get the current weather/);
    expect(server.requests[2].body.input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'w1', output: 'get_weather(Paris,-)' });
    expect(result.outputText).toBe('It is mild.');
    expect(events[0]).toMatchObject({ tools: ['lookup', 'tool_search'] });
  });

  it('tells the model which tools exist when nothing matched', async () => {
    const { server } = await runScriptedTurn({
      tools: [weather, files],
      script: [{ output: [functionCall('tool_search', { query: 'quantum teleport' }, { callId: 's1' })] }, { output: [message('none')] }],
    });
    expect(server.requests[1].body.input.at(-1).output).toBe('No tool matched "quantum teleport". Searchable tools: get_weather, search_files.');
    expect(server.requests[1].body.tools.map((t: any) => t.name)).toEqual(['tool_search']);
  });

  it('answers a captured client tool_search_call (call_id from output_item.done) and then runs the loaded tool', async () => {
    const { server, result } = await runScriptedTurn({
      tools: [weather, files],
      script: [
        { fixture: 'openai-client-tool-search.1.chunks.txt' },
        { fixture: 'openai-client-tool-search.2.chunks.txt' },
        { output: [message('72F and sunny')] },
      ],
    });
    const second = server.requests[1].body;
    const searchOutput = second.input.at(-1);
    expect(second.input.at(-2)).toMatchObject({ type: 'tool_search_call', call_id: 'call_RWTIIVfxsJW9fecsg6fy23Dy' });
    expect(searchOutput).toMatchObject({ type: 'tool_search_output', call_id: 'call_RWTIIVfxsJW9fecsg6fy23Dy', execution: 'client', status: 'completed' });
    expect(searchOutput.tools.map((t: any) => t.name)).toEqual(['get_weather']);
    expect(second.tools.map((t: any) => t.name)).toEqual(['get_weather', 'tool_search']);
    expect(server.requests[2].body.input.at(-1)).toEqual({
      type: 'function_call_output', call_id: 'call_Q7pq6EfVGRnauPLWSSYBGJ1l', output: 'get_weather(San Francisco, CA,fahrenheit)',
    });
    expect(result.outputText).toBe('72F and sunny');
  });
});

describe('hosted tool search', () => {
  it('sends deferred tools with defer_loading and the tool_search tool, and dispatches their calls', async () => {
    const { server } = await runScriptedTurn({
      tools: [visible, weather],
      options: { toolSearchMode: 'hosted' },
      script: [{ output: [functionCall('get_weather', { location: 'Oslo' }, { callId: 'w1' })] }, { output: [message('cold')] }],
    });
    const tools = server.requests[0].body.tools;
    expect(tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'get_weather', defer_loading: true }),
      expect.objectContaining({ type: 'function', name: 'lookup' }),
      { type: 'tool_search' },
    ]);
    expect(tools[1].defer_loading).toBeUndefined();
    expect(server.requests[1].body.input.at(-1)).toMatchObject({ call_id: 'w1', output: 'get_weather(Oslo,-)' });
  });
});
