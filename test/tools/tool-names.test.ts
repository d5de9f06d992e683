/**
 * The static list of every family's tool names (src/assembly/tool-names.ts, which APPROVAL_POLICY
 * is checked against) matches what the real assembler builds: POST /v1/tools/preview on the real
 * service with every family enabled offers exactly the listed names of those families.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAMILY_TOOL_NAMES, KNOWN_TOOL_NAMES } from '../../src/assembly/tool-names.js';
import { TOOL_FAMILIES } from '../../src/config.js';
import { SUBMIT_RESULT_TOOL } from '../../src/tools/submit-result/submit-result-tool.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';

let svc: TestService;
beforeAll(async () => {
  // No search request is made: a configured provider only makes web_search part of the set.
  svc = await startTestService({ env: { COMPUTER_SANDBOX: 'none', WEB_SEARCH_PROVIDER: 'brave', WEB_SEARCH_API_KEY: 'test-search-key' } });
});
afterAll(async () => {
  await svc?.close();
});

it('a main turn with every family and the brain gets exactly the listed names of those families', async () => {
  const r = await api(svc.url, 'POST', '/v1/tools/preview', { tools: [...TOOL_FAMILIES], brain: true });
  expect(r.status).toBe(200);
  expect(r.body.unavailable).toEqual([]);
  const expected = [...TOOL_FAMILIES.flatMap((f) => FAMILY_TOOL_NAMES[f]), ...FAMILY_TOOL_NAMES.brain].sort();
  expect([...r.body.tools].sort()).toEqual(expected);
});

it('lists the workflow task tool and every name once', () => {
  expect(FAMILY_TOOL_NAMES.submit_result).toEqual([SUBMIT_RESULT_TOOL]);
  expect(new Set(KNOWN_TOOL_NAMES).size).toBe(KNOWN_TOOL_NAMES.length);
});
