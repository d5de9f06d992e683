/**
 * The real service twice, one on each model wire protocol — Chat Completions (`MODEL_API=chat`)
 * and Responses — each against its own scripted server on loopback, for tests that check the same
 * behaviour on both adapters. Started in `beforeAll`, closed in `afterAll` of the calling file.
 */
import { afterAll, beforeAll } from 'vitest';
import { startScriptedChatServer, type ScriptedChatServer } from '../../support/scripted-chat-server.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { startTestService, type TestService } from './service.js';

/** The scripted servers and the services pointed at them (set once `beforeAll` ran). */
export interface BothAdapters {
  chat: ScriptedChatServer;
  responses: ScriptedResponsesServer;
  chatSvc: TestService;
  responsesSvc: TestService;
}

/** Register the start and close of {@link BothAdapters} for the calling test file; @returns the object they fill. */
export function useBothAdapters(): BothAdapters {
  const s = {} as BothAdapters;
  beforeAll(async () => {
    s.chat = await startScriptedChatServer();
    s.responses = await startScriptedResponsesServer();
    s.chatSvc = await startTestService({ modelBaseURL: s.chat.baseURL, env: { MODEL_API: 'chat' } });
    s.responsesSvc = await startTestService({ modelBaseURL: s.responses.baseURL });
  });
  afterAll(async () => {
    await s.chatSvc?.close();
    await s.responsesSvc?.close();
    await s.chat?.close();
    await s.responses?.close();
  });
  return s;
}
