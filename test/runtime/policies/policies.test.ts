import { describe, expect, it } from 'vitest';
import { decideEnding } from '../../../src/runtime/policies/answerless-end.js';
import { CUT_RESPONSE_INSTRUCTION, decideCutRetry } from '../../../src/runtime/policies/cut-retry.js';
import { advanceStreak, callKey, decideRepeats, REPEAT_LIMIT, type RepeatStreak } from '../../../src/runtime/policies/repeated-call.js';
import { decideToolCallText, detectToolCallText, TOOL_CALL_TEXT_NUDGE } from '../../../src/runtime/policies/tool-call-text.js';

describe('repeated identical calls', () => {
  const call = (args: string, identity = 'read_file') => ({ identity, arguments: args });
  const ran = (output: string) => ({ output, refused: false });

  it('treats arguments as JSON values: key order and spacing do not matter', () => {
    expect(callKey(call('{"a":1,"b":[1,{"y":2,"x":1}]}'))).toBe(callKey(call('{ "b": [1, {"x":1,"y":2}], "a": 1 }')));
    expect(callKey(call('{"a":1}'))).not.toBe(callKey(call('{"a":2}')));
    expect(callKey(call('{"a":1}'))).not.toBe(callKey(call('{"a":1}', 'ls')));
  });

  it(`refuses the next identical call after ${REPEAT_LIMIT} identical calls with the identical result, quoting it`, () => {
    let s: RepeatStreak | undefined;
    for (let i = 0; i < REPEAT_LIMIT; i++) {
      expect(decideRepeats(s, [call('{"p":"a"}')])).toEqual([undefined]);
      s = advanceStreak(s, [call('{"p":"a"}')], [ran('same')]);
    }
    const [refusal] = decideRepeats(s, [call('{"p":"a"}')]);
    expect(refusal).toMatch(/^Error: this call repeats the previous 3 calls exactly \(same tool read_file, same arguments\)/);
    expect(refusal).toContain('The last result was:\nsame');
    // Refusals keep the streak: a further identical call is refused too.
    s = advanceStreak(s, [call('{"p":"a"}')], [{ output: refusal!, refused: true }]);
    expect(decideRepeats(s, [call('{"p":"a"}')])[0]).toBe(refusal);
  });

  it('starts over on a different result, a different call, or different arguments', () => {
    let s = advanceStreak(undefined, [call('{}'), call('{}')], [ran('a'), ran('a')]);
    s = advanceStreak(s, [call('{}')], [ran('b')]);
    expect(s?.count).toBe(1);
    s = advanceStreak(s, [call('{}'), call('{}')], [ran('b'), ran('b')]);
    expect(s?.count).toBe(3);
    expect(decideRepeats(s, [call('{"x":1}')])).toEqual([undefined]);
    expect(decideRepeats(s, [call('{}', 'ls')])).toEqual([undefined]);
    // Only the identical calls at the start of a round continue the row.
    const out = decideRepeats(s, [call('{}'), call('{}', 'ls'), call('{}')]);
    expect(out.map((o) => o !== undefined)).toEqual([true, false, false]);
  });
});

describe('tool-call markup written as text', () => {
  const tools = new Set(['read_file', 'web.search']);

  it.each([
    ['<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>', '<tool_call>'],
    ['Sure. <function_call>{"name":"x"}</function_call>', '<tool_call>'],
    ['<function=read_file>{"path": "a"}</function>', '<function=…>'],
    ['[TOOL_CALLS] [{"name": "read_file", "arguments": {}}]', '[TOOL_CALLS]'],
    ['<|tool_call|>read_file', '<|tool_call|>'],
    ['{"name": "read_file", "arguments": {"path": "a.txt"}}', 'JSON tool call'],
    ['```json\n{"tool": "web.search", "parameters": {"q": "x"}}\n```', 'JSON tool call'],
    ['{"function": {"name": "read_file", "arguments": "{}"}}', 'JSON tool call'],
    ['[{"name": "read_file", "arguments": {}}]', 'JSON tool call'],
  ])('detects %j', (text, format) => {
    expect(detectToolCallText(text, tools)).toBe(format);
  });

  it.each([
    'The file says hello.',
    '{"name": "Ada", "arguments": "none"}', // a JSON answer that names no tool
    '{"result": 42}',
    'Use `read_file` with {"path": "a"} to read it.', // prose around JSON is an answer
  ])('leaves a normal answer alone: %j', (text) => {
    expect(detectToolCallText(text, tools)).toBeNull();
  });

  it('nudges once, then accepts', () => {
    expect(decideToolCallText(false, '<tool_call>{}</tool_call>', tools)).toEqual({ type: 'nudge', instruction: TOOL_CALL_TEXT_NUDGE, format: '<tool_call>' });
    expect(decideToolCallText(true, '<tool_call>{}</tool_call>', tools)).toEqual({ type: 'accept' });
  });
});

describe('cut responses and endings without an answer', () => {
  it('retries a max_output_tokens cut once with an instruction, then ends with the reason', () => {
    expect(decideCutRetry(false, 'max_output_tokens')).toEqual({ type: 'retry', instruction: CUT_RESPONSE_INSTRUCTION });
    expect(CUT_RESPONSE_INSTRUCTION).toMatch(/cut off/);
    expect(decideCutRetry(true, 'max_output_tokens')).toEqual({ type: 'end', stopReason: 'max_output_tokens' });
    expect(decideCutRetry(false, 'content_filter')).toEqual({ type: 'end', stopReason: 'content_filter' });
  });

  it('fails a turn that ends without answer text because of truncation or emptiness', () => {
    expect(decideEnding('max_output_tokens', '')).toMatchObject({ type: 'failed', error: { code: 'max_output_tokens' } });
    expect(decideEnding('empty_response', '')).toMatchObject({ type: 'failed', error: { code: 'empty_response' } });
    expect(decideEnding('stop', '', { requests: 1, nudged: false })).toMatchObject({ error: { code: 'empty_response', message: expect.stringMatching(/to the turn's only model request; it was not asked to continue/) } });
    expect(decideEnding('stop', '', { requests: 4, nudged: false })).toMatchObject({ error: { message: expect.stringMatching(/to the last of 4 model requests; it was not asked/) } });
    expect(decideEnding('empty_response', '', { requests: 3, nudged: true })).toMatchObject({ error: { message: expect.stringMatching(/again after being asked to continue \(3 model requests\)\.$/) } });
    expect(decideEnding('max_steps', '')).toMatchObject({ type: 'failed', error: { code: 'max_steps', message: expect.stringMatching(/Raise max_steps/) } });
    expect(decideEnding('content_filter', '')).toMatchObject({ type: 'failed', error: { code: 'content_filter' } });
  });

  it('keeps turns with text, and turns a tool ended on purpose, completed', () => {
    expect(decideEnding('max_output_tokens', 'partial')).toEqual({ type: 'completed', stopReason: 'max_output_tokens' });
    expect(decideEnding('stop', 'answer')).toEqual({ type: 'completed', stopReason: 'stop' });
    expect(decideEnding('terminated', '')).toEqual({ type: 'completed', stopReason: 'terminated' });
  });
});
