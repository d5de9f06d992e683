/** MODEL_API and MODEL_CHAT_FEATURES: accepted values, and bad ones refused with what to use. */
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('config was accepted');
};

it('defaults to the Responses API with no chat server features', () => {
  expect(loadConfig({})).toMatchObject({ MODEL_API: 'responses', MODEL_CHAT_FEATURES: [] });
});

it('takes MODEL_API=chat and a comma-separated feature list', () => {
  expect(loadConfig({ MODEL_API: 'chat', MODEL_CHAT_FEATURES: 'tool_choice, parallel_tool_calls' })).toMatchObject({
    MODEL_API: 'chat', MODEL_CHAT_FEATURES: ['tool_choice', 'parallel_tool_calls'],
  });
});

it('refuses an unknown MODEL_API and an unknown feature, naming the accepted values', () => {
  expect(refusal({ MODEL_API: 'completions' })).toMatch(/MODEL_API=completions: .*responses.*chat/);
  expect(refusal({ MODEL_CHAT_FEATURES: 'tool_choice,tools_choice' })).toBe(
    'MODEL_CHAT_FEATURES=tool_choice,tools_choice: "tools_choice" is not one of tool_choice, tool_choice_none, parallel_tool_calls, developer_role, system_anywhere (a comma-separated list of them)',
  );
});
