/**
 * Failed and stopped calls of the real computer tools end with a completed-form label saying what
 * happened, through the real loop (real openai SDK, scripted Responses server, bubblewrap).
 */
import { describe, expect, it } from 'vitest';
import { runScriptedTurn } from '../../support/run-turn-harness.js';
import { functionCall, message } from '../../support/scripted-responses-server.js';
import { turnContext, useComputerHome } from './support.js';

const h = useComputerHome();

describe('labels of failed and stopped calls', () => {
  it('"Could not read /etc/shadow" for a read outside the home', async () => {
    const { events } = await runScriptedTurn({
      tools: h.tools,
      turnContext: turnContext(h.dataDir),
      script: [{ output: [functionCall('read_file', { path: '/etc/shadow' }, { callId: 'r1' })] }, { output: [message('ok')] }],
    });
    expect(events.find((e) => e.type === 'tool.started')).toMatchObject({ call_id: 'r1', label: 'Reading /etc/shadow' });
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ call_id: 'r1', label: 'Could not read /etc/shadow', is_error: true });
  });

  it('"Stopped `sleep 30`" for a command stopped by cancelling the turn', async () => {
    const ac = new AbortController();
    const { result, events } = await runScriptedTurn({
      tools: h.tools,
      turnContext: turnContext(h.dataDir),
      signal: ac.signal,
      onEvent: (e) => { if (e.type === 'tool.started') setTimeout(() => ac.abort(), 300); },
      script: [{ output: [functionCall('command', { command: 'sleep 30' }, { callId: 'c1' })] }],
    });
    expect(result.status).toBe('cancelled');
    expect(events.find((e) => e.type === 'tool.started')).toMatchObject({ label: 'Running `sleep 30`' });
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ call_id: 'c1', label: 'Stopped `sleep 30`', is_error: true });
  });
});
