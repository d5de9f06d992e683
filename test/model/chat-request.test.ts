import { describe, expect, it } from 'vitest';
import { NO_USER_TEXT, REASONING_FIELD_KEY, toChatMessages } from '../../src/model/chat-messages.js';
import { chatFeatures, toChatRequest } from '../../src/model/chat-request.js';
import type { ModelRequest, TranscriptItem } from '../../src/model/port.js';

const user = (content: string): TranscriptItem => ({ type: 'message', role: 'user', content });
const call = (call_id: string, args = '{"text":"x"}', extra: { namespace?: string; name?: string } = {}): TranscriptItem => ({
  type: 'function_call', call_id, name: extra.name ?? 'echo', arguments: args, ...(extra.namespace ? { namespace: extra.namespace } : {}),
});
const out = (call_id: string, output: string): TranscriptItem => ({ type: 'function_call_output', call_id, output });
const echoTool = { type: 'function' as const, name: 'echo', description: 'Echo', parameters: { type: 'object' }, strict: true };
const req = (extra: Partial<ModelRequest> = {}): ModelRequest => ({ model: 'm', input: [user('hi')], tools: [echoTool], toolChoice: 'auto', ...extra });

describe('Chat Completions messages from a transcript', () => {
  it('sends instructions and leading system/developer messages as one system message first', () => {
    const msgs = toChatMessages('Be brief.', [{ type: 'message', role: 'developer', content: 'Use metric units.' }, user('hi')]);
    expect(msgs).toEqual([{ role: 'system', content: 'Be brief.\n\nUse metric units.' }, { role: 'user', content: 'hi' }]);
  });

  it('merges an answer and its calls into one assistant message, then one tool message per call in call order', () => {
    const msgs = toChatMessages(undefined, [
      user('go'),
      { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Checking.' }] },
      call('c1'), call('c2'),
      out('c2', 'second'), out('c1', 'first'),
    ]);
    expect(msgs.slice(1)).toEqual([
      { role: 'assistant', content: 'Checking.', tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } },
        { id: 'c2', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } },
      ] },
      { role: 'tool', tool_call_id: 'c1', content: 'first' },
      { role: 'tool', tool_call_id: 'c2', content: 'second' },
    ]);
  });

  it('sends each round\'s calls as their own assistant message followed by their tool messages', () => {
    const fc = (id: string, name: string, args: string, namespace?: string) => ({ id, type: 'function', function: { name: namespace ? `${namespace}__${name}` : name, arguments: args } });
    const msgs = toChatMessages(undefined, [
      user('go'),
      call('call_1', '{"n":1}'), out('call_1', 'one'),
      call('call_2', '{"n":2}', { namespace: 'widgets', name: 'create_widget' }), call('call_3', '{"n":3}'),
      out('call_3', 'three'), out('call_2', 'two'),
      { type: 'custom_tool_call', call_id: 'call_4', name: 'apply_patch', input: '*** Begin' }, { type: 'custom_tool_call_output', call_id: 'call_4', output: 'patched' },
      call('call_5', '{"n":5}'), out('call_5', 'five'),
      { type: 'message', role: 'assistant', content: 'Done.' },
    ]);
    expect(msgs).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [fc('call_1', 'echo', '{"n":1}')] },
      { role: 'tool', tool_call_id: 'call_1', content: 'one' },
      { role: 'assistant', content: null, tool_calls: [fc('call_2', 'create_widget', '{"n":2}', 'widgets'), fc('call_3', 'echo', '{"n":3}')] },
      { role: 'tool', tool_call_id: 'call_2', content: 'two' },
      { role: 'tool', tool_call_id: 'call_3', content: 'three' },
      { role: 'assistant', content: null, tool_calls: [fc('call_4', 'apply_patch', '{"input":"*** Begin"}')] },
      { role: 'tool', tool_call_id: 'call_4', content: 'patched' },
      { role: 'assistant', content: null, tool_calls: [fc('call_5', 'echo', '{"n":5}')] },
      { role: 'tool', tool_call_id: 'call_5', content: 'five' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('ends a round that also ran a tool search at its outputs: the next call is a new assistant message', () => {
    const msgs = toChatMessages(undefined, [
      user('go'),
      call('c1'), { type: 'tool_search_call', call_id: 's1', arguments: {}, execution: 'client' },
      { type: 'tool_search_output', call_id: 's1', tools: [], execution: 'client', status: 'completed' }, out('c1', 'ok'),
      call('c2'), out('c2', 'ok2'),
    ]);
    expect(msgs.slice(1).map((m) => [m.role, 'tool_calls' in m ? m.tool_calls?.map((c) => c.id) : (m as { tool_call_id?: string }).tool_call_id])).toEqual([
      ['assistant', ['c1']], ['tool', 'c1'], ['assistant', ['c2']], ['tool', 'c2'],
    ]);
  });

  it('flattens a namespaced call and sends malformed arguments back as {}', () => {
    const msgs = toChatMessages(undefined, [user('go'), call('c1', '{"name":"w', { namespace: 'widgets', name: 'create_widget' }), out('c1', 'Error: bad JSON')]);
    expect(msgs[1]).toMatchObject({ tool_calls: [{ function: { name: 'widgets__create_widget', arguments: '{}' } }] });
  });

  it('answers a call that has no output with an Error tool message and drops an output without a call', () => {
    const msgs = toChatMessages(undefined, [user('go'), call('c1'), out('zz', 'orphan')]);
    expect(msgs.slice(2)).toEqual([{ role: 'tool', tool_call_id: 'c1', content: 'Error: no output was recorded for this call.' }]);
  });

  it('sends reasoning back only on the assistant message that made tool calls, under the field it came in', () => {
    const msgs = toChatMessages(undefined, [
      user('go'),
      { type: 'reasoning', summary: ['I should call echo.'], providerData: { [REASONING_FIELD_KEY]: 'reasoning' } },
      call('c1'), out('c1', 'ok'),
      { type: 'reasoning', summary: ['Now answer.'] },
      { type: 'message', role: 'assistant', content: 'Done.' },
    ]);
    expect(msgs[1]).toMatchObject({ role: 'assistant', reasoning: 'I should call echo.' });
    expect(msgs[3]).toEqual({ role: 'assistant', content: 'Done.' });
  });

  it('sends reasoning_content by default (DeepSeek wants it on the tool-call message)', () => {
    const msgs = toChatMessages(undefined, [user('go'), { type: 'reasoning', summary: ['think'] }, call('c1'), out('c1', 'ok')]);
    expect(msgs[1]).toMatchObject({ reasoning_content: 'think', content: null });
  });

  it('never sends an empty user turn: empty user messages are left out, a history without user text gets one', () => {
    expect(toChatMessages('Sys', [user('  '), { type: 'message', role: 'assistant', content: 'Hello!' }])).toEqual([
      { role: 'system', content: 'Sys' },
      { role: 'user', content: NO_USER_TEXT },
      { role: 'assistant', content: 'Hello!' },
    ]);
    expect(toChatMessages(undefined, [{ type: 'message', role: 'system', content: 'Only instructions' }])).toEqual([
      { role: 'system', content: 'Only instructions' },
      { role: 'user', content: NO_USER_TEXT },
    ]);
  });

  it('sends later system/developer messages as user messages unless the server takes system messages anywhere', () => {
    const input: TranscriptItem[] = [user('go'), call('c1'), out('c1', 'ok'), { type: 'message', role: 'developer', content: 'Answer now.' }];
    expect(toChatMessages(undefined, input).at(-1)).toEqual({ role: 'user', content: 'Answer now.' });
    expect(toChatMessages(undefined, input, { systemAnywhere: true }).at(-1)).toEqual({ role: 'system', content: 'Answer now.' });
  });

  it('keeps images of user messages as image_url parts', () => {
    const msgs = toChatMessages(undefined, [{ type: 'message', role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', url: 'data:image/png;base64,AAA' }] }]);
    expect(msgs[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } }] });
  });

  it('leaves out tool searches and other providers\' items', () => {
    const msgs = toChatMessages(undefined, [user('go'), { type: 'provider_item', provider: 'openai-responses', item: { type: 'web_search_call' } }, { type: 'tool_search_call', call_id: 's1', arguments: {}, execution: 'client' }]);
    expect(msgs).toEqual([{ role: 'user', content: 'go' }]);
  });
});

describe('Chat Completions request params', () => {
  it('streams with usage requested, maps tools (strict only when true) and max_tokens', () => {
    const { params } = toChatRequest(req({ maxOutputTokens: 256, instructions: 'Be brief.' }), chatFeatures());
    expect(params).toEqual({
      model: 'm', stream: true, stream_options: { include_usage: true }, max_tokens: 256,
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'echo', description: 'Echo', parameters: { type: 'object' }, strict: true } }],
    });
  });

  it('sends tool_choice and parallel_tool_calls only where the server accepts them', () => {
    const plain = toChatRequest(req({ toolChoice: 'required', parallelToolCalls: false }), chatFeatures()).params;
    expect(plain.tool_choice).toBeUndefined();
    expect(plain.parallel_tool_calls).toBeUndefined();
    const capable = toChatRequest(req({ toolChoice: 'required', parallelToolCalls: false }), chatFeatures(['tool_choice', 'parallel_tool_calls'])).params;
    expect(capable).toMatchObject({ tool_choice: 'required', parallel_tool_calls: false });
  });

  it('sends the final no-tools request without tools, with tool_choice none only where accepted', () => {
    const plain = toChatRequest(req({ toolChoice: 'none' }), chatFeatures(['tool_choice']));
    expect(plain.params.tools).toBeUndefined();
    expect(plain.params.tool_choice).toBeUndefined();
    expect(plain.toolsOffered).toBe(false);
    expect(toChatRequest(req({ toolChoice: 'none' }), chatFeatures(['tool_choice_none'])).params.tool_choice).toBe('none');
  });

  it('uses the developer role for instructions where the server takes it', () => {
    expect(toChatRequest(req({ instructions: 'X' }), chatFeatures(['developer_role'])).params.messages[0]).toEqual({ role: 'developer', content: 'X' });
  });

  it('refuses an unknown feature name with the list of known ones', () => {
    expect(() => chatFeatures(['tools_choice'])).toThrow(/unknown chat server feature "tools_choice"; known: tool_choice, tool_choice_none/);
  });
});
