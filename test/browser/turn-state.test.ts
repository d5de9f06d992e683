/** The console's pure turn view-model (console/turn-state.ts): folding SSE events exactly once. */
import { describe, expect, it } from 'vitest';
import { applyEvent, initialTurnState, type IncomingEvent } from '../../console/turn-state.js';
import { steerSummary } from '../../console/steer.js';
import { turnOwnerNote } from '../../console/owner.js';
import { jobQuestionNote } from '../../console/question.js';
import { ApiError, plainWords } from '../../console/api.js';

const events: IncomingEvent[] = [
  { seq: 1, type: 'turn.started', model: 'm', tools: ['todo', 'read_file'], unavailable: [{ family: 'web', reason: 'provider not configured' }] },
  { seq: 2, type: 'message.delta', text: 'Let me ' },
  { seq: 3, type: 'message.delta', text: 'look.' },
  { seq: 4, type: 'message.completed', text: 'Let me look.' },
  { seq: 5, type: 'tool.started', call_id: 'c1', name: 'todo', label: null, arguments: {} },
  { seq: 6, type: 'tool.started', call_id: 'c2', name: 'read_file', label: 'Reading a.txt', arguments: {} },
  { seq: 7, type: 'tool.completed', call_id: 'c1', name: 'todo', label: null, is_error: false, output: 'ok' },
  { seq: 8, type: 'presentation', call_id: 'c1', event: { type: 'plan.snapshot', items: [{ id: '1', content: 'Read', status: 'in_progress' }] } },
  { seq: 9, type: 'tool.progress', call_id: 'c2', message: 'half way' },
  { seq: 10, type: 'tool.completed', call_id: 'c2', name: 'read_file', label: 'Read a.txt (3 lines)', is_error: false, output: '1 a\n2 b\n3 c' },
  { seq: 11, type: 'message.delta', text: 'Done.' },
  { seq: 12, type: 'turn.completed', output_text: 'Done.', stop_reason: 'stop', steps: 2, usage: { input_tokens: 1, output_tokens: 1 } },
];

describe('turn view-model', () => {
  it('builds messages, one row per labelled tool call and the plan, in order', () => {
    const s = initialTurnState('t');
    for (const e of events) expect(applyEvent(s, e)).toBe(true);
    expect(s.status).toBe('completed');
    expect(s.lastSeq).toBe(12);
    expect(s.timeline).toEqual([
      { kind: 'message', key: 'm2', text: 'Let me look.', done: true },
      { kind: 'tool', callId: 'c2', name: 'read_file', label: 'Read a.txt (3 lines)', state: 'done', output: '1 a\n2 b\n3 c', progress: undefined },
      { kind: 'message', key: 'm11', text: 'Done.', done: true },
    ]);
    expect(s.plan).toEqual([{ id: '1', content: 'Read', status: 'in_progress' }]);
    expect(s.unavailable).toEqual([{ family: 'web', reason: 'provider not configured' }]);
  });

  it('ignores replayed events, so a resume that overlaps shows every row once', () => {
    const s = initialTurnState('t');
    for (const e of events.slice(0, 8)) applyEvent(s, e);
    // The stream resumes from an earlier id and replays 5..12.
    const applied = events.slice(4).map((e) => applyEvent(s, structuredClone(e)));
    expect(applied).toEqual([false, false, false, false, true, true, true, true]);
    expect(s.timeline.filter((i) => i.kind === 'tool')).toHaveLength(1);
    expect(s.timeline.map((i) => (i.kind === 'tool' ? i.label : 'text' in i ? i.text : i.message))).toEqual(['Let me look.', 'Read a.txt (3 lines)', 'Done.']);
  });

  it('shows the running label and progress until the call completes, and marks failures', () => {
    const s = initialTurnState('t');
    applyEvent(s, { seq: 1, type: 'tool.started', call_id: 'x', name: 'command', label: 'Running make', arguments: {} });
    applyEvent(s, { seq: 2, type: 'tool.progress', call_id: 'x', message: '10 lines of output' });
    expect(s.timeline[0]).toMatchObject({ label: 'Running make', state: 'running', progress: '10 lines of output' });
    applyEvent(s, { seq: 3, type: 'tool.completed', call_id: 'x', name: 'command', label: 'Ran make (exit 2)', is_error: true, output: 'Error: exit 2' });
    expect(s.timeline[0]).toMatchObject({ label: 'Ran make (exit 2)', state: 'error', output: 'Error: exit 2' });
  });

  it('marks calls a cancel cut short, and keeps a failure’s error', () => {
    const s = initialTurnState('t');
    applyEvent(s, { seq: 1, type: 'tool.started', call_id: 'a', name: 'command', label: 'Running sleep 30', arguments: {} });
    applyEvent(s, { seq: 2, type: 'turn.cancelled', calls: [{ call_id: 'a', state: 'cancelled' }] });
    expect(s.status).toBe('cancelled');
    expect(s.timeline[0]).toMatchObject({ state: 'cancelled' });
    const f = initialTurnState('u');
    applyEvent(f, { seq: 1, type: 'turn.failed', error: { code: 'interrupted', message: 'service restarted' } });
    expect(f).toMatchObject({ status: 'failed', error: { code: 'interrupted', message: 'service restarted' } });
  });

  it('survives events it does not know and events without a seq', () => {
    const s = initialTurnState('t');
    expect(applyEvent(s, { seq: 1, type: 'something.new', x: 1 })).toBe(true);
    expect(applyEvent(s, { type: 'message.delta', text: 'x' } as unknown as IncomingEvent)).toBe(false);
    expect(s.timeline).toEqual([]);
  });

  it('records applied steering messages and the clarify question with its choices', () => {
    const s = initialTurnState('t', 'running');
    applyEvent(s, { seq: 1, type: 'input.queued', message_id: 'msg_1' });
    expect(s.appliedInputs).toEqual([]);
    applyEvent(s, { seq: 2, type: 'input.applied', message_id: 'msg_1' });
    applyEvent(s, { seq: 2, type: 'input.applied', message_id: 'msg_1' }); // a replayed duplicate
    expect(s.appliedInputs).toEqual(['msg_1']);
    applyEvent(s, { seq: 3, type: 'presentation', call_id: 'c', event: { type: 'clarify', question: 'Which one?', choices: [{ label: 'a' }, { label: 'b', description: 'the other' }] } });
    expect(s.question).toEqual({ question: 'Which one?', choices: [{ label: 'a' }, { label: 'b', description: 'the other' }] });
  });

  it('records steering messages the turn will never apply, with the reason, once each', () => {
    const s = initialTurnState('t', 'running');
    applyEvent(s, { seq: 1, type: 'input.queued', message_id: 'msg_1' });
    applyEvent(s, { seq: 2, type: 'input.not_applied', message_id: 'msg_1', reason: 'max_steps' });
    applyEvent(s, { seq: 2, type: 'input.not_applied', message_id: 'msg_1', reason: 'max_steps' }); // a replayed duplicate
    applyEvent(s, { seq: 3, type: 'turn.completed', output_text: '', stop_reason: 'max_steps' });
    expect(s.notAppliedInputs).toEqual([{ messageId: 'msg_1', reason: 'max_steps' }]);
    expect(s.appliedInputs).toEqual([]);
  });

  it('the steer status names the messages the agent never got and why, next to those it got', () => {
    expect(steerSummary([{ content: 'Use staging', fate: 'waiting' }])).toBe('Message sent — the agent gets it before its next step (1 waiting).');
    expect(steerSummary([{ content: 'Use staging', fate: 'not_applied', reason: 'max_steps' }])).toBe(
      'Not given to the agent: "Use staging" — the turn stopped at its step limit first. Send it again in a new turn to continue.',
    );
    expect(
      steerSummary([
        { content: 'First', fate: 'applied' },
        { content: 'Second', fate: 'not_applied', reason: 'cancelled' },
        { content: 'Third', fate: 'not_applied', reason: 'cancelled' },
      ]),
    ).toBe('Not given to the agent: "Second", "Third" — the turn was cancelled first. If a new turn interrupted this one, that turn got them; otherwise send them again in a new turn. (1 other message was given to the agent.)');
    expect(steerSummary([{ content: 'x'.repeat(100), fate: 'not_applied', reason: 'failed' }])).toBe(`Not given to the agent: "${'x'.repeat(59)}…" — the turn failed first. Send it again in a new turn to continue.`);
  });

  it('a turn a background job or workflow drives gets a note naming its owner instead of the steer and cancel controls', () => {
    expect(turnOwnerNote({ kind: 'main', origin: { type: 'api' } })).toBeNull();
    expect(turnOwnerNote({ kind: 'scheduled', origin: { type: 'schedule' } })).toBeNull();
    expect(turnOwnerNote({ kind: 'background_job', origin: { type: 'background_job', job_id: 'job_1' } })).toMatch(/^This turn is run by background job job_1: .*Background jobs panel/);
    expect(turnOwnerNote({ kind: 'workflow_task', origin: { type: 'workflow', workflow_id: 'wf_1' } })).toBe(
      'This turn is a task of workflow wf_1: it takes no messages, and only cancelling the workflow (POST /v1/workflows/wf_1/cancel) stops it.',
    );
    const owned = 'turn t is run by background job job_1 and cannot be steered directly; send the message with POST /v1/jobs/job_1/messages instead';
    expect(plainWords(new ApiError(409, 'turn_owned', owned))).toBe(owned);
  });

  it("a background job's question points to the job instead of answering it with a new turn (which would leave the job waiting)", () => {
    expect(jobQuestionNote({ kind: 'main', origin: { type: 'api' } })).toBeNull();
    expect(jobQuestionNote({ kind: 'background_job', origin: { type: 'background_job', job_id: 'job_7' } })).toBe(
      "This question is background job job_7's: answer it in the Background jobs panel (POST /v1/jobs/{id}/messages), which resumes the job.",
    );
  });
});

describe('reasoning and model warnings', () => {
  it('folds reasoning deltas into one row, done once the answer follows, and keeps warnings as rows', () => {
    const s = initialTurnState('t');
    const evs: IncomingEvent[] = [
      { seq: 1, type: 'turn.started', model: 'm', tools: [], unavailable: [] },
      { seq: 2, type: 'reasoning.delta', text: 'Think ' },
      { seq: 3, type: 'reasoning.delta', text: 'hard.' },
      { seq: 4, type: 'message.delta', text: 'Answer' },
      { seq: 5, type: 'model.warning', code: 'tool_calls_ignored', message: '1 tool call was ignored', call_ids: ['c9'] },
    ];
    for (const e of evs) applyEvent(s, e);
    expect(s.timeline).toEqual([
      { kind: 'reasoning', key: 'r2', text: 'Think hard.', done: true },
      { kind: 'message', key: 'm4', text: 'Answer', done: false },
      { kind: 'warning', key: 'w5', code: 'tool_calls_ignored', message: '1 tool call was ignored' },
    ]);
  });
});
