/**
 * Names people read that the model gives in tool arguments — a background job's title, a
 * schedule's name, a workflow's title and task labels — are one line of plain text with a visible
 * character: one with a bidi control (U+202E) or only invisible characters is refused with an
 * `Error:` output naming the field and the character, so the model can send it again; nothing is
 * created. Through a real turn: the service on loopback, the scripted Responses server, the real
 * jobs, schedule and workflow tools.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';

const harness = useScriptedService();

const BIDI = (at: number) => `U+202E (a bidirectional control), found at character ${at}: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed`;
/** The same for a model name, which refuses every format character too (U+200D and U+200C among them). */
const MODEL_BIDI = (at: number) => `U+202E (a bidirectional control), found at character ${at}: no control characters, line or paragraph separators, invisible or format characters or bidirectional controls are allowed`;
const result = { type: 'object', properties: { v: { type: 'string' } }, required: ['v'], additionalProperties: false };

describe('names in tool arguments', () => {
  it('refuse a bidi control or no visible character in a job title, a schedule name, a workflow title and task label', async () => {
    harness.model.push(
      {
        output: [
          functionCall('create_background_job', { title: 't \u202E x', task: 'count to three' }, { callId: 'job' }),
          functionCall('create_background_job', { title: '\u2800', task: 'count to three' }, { callId: 'jobBlank' }),
          functionCall('create_background_job', { title: '\uFEFF', task: 'count to three' }, { callId: 'jobBom' }),
          functionCall('create_background_job', { title: 'count', task: 'count to three', model: 'gpt\u202E' }, { callId: 'jobModel' }),
          functionCall('schedule_create', { name: 'a\u202Eb', when: { cron: '0 9 * * *', timezone: 'UTC' }, input: 'report' }, { callId: 'schedule' }),
          functionCall('workflow_start', { title: 'w\u202Ex', tasks: [{ label: 'a\u202Eb', prompt: 'find it', result_schema: result }] }, { callId: 'workflow' }),
        ],
      },
      { output: [message('done')] },
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'set things up', agent_id: 'names-args', tools: ['jobs', 'schedule', 'workflow'] }, timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    const done = Object.fromEntries(r.events.filter((e) => e.event === 'tool.completed').map((e) => [e.json.call_id, e.json]));
    for (const id of ['job', 'jobBlank', 'jobBom', 'jobModel', 'schedule', 'workflow']) expect(done[id], id).toMatchObject({ is_error: true, output: expect.stringMatching(/^Error: /) });
    expect(done.job.output).toContain(`Error: invalid arguments for tool create_background_job:\n- title: must not contain ${BIDI(3)}; send the title as one line of plain text without them`);
    // A byte order mark alone is refused for that character (trim() would strip it), and only for it.
    expect(done.jobBom.output).toBe('Error: invalid arguments for tool create_background_job:\n- title: ' + done.job.output.split('- title: ')[1].replace('U+202E (a bidirectional control), found at character 3', 'U+FEFF (an invisible character), found at character 1'));
    expect(done.jobModel.output).toContain(`Error: invalid arguments for tool create_background_job:\n- model: must not contain ${MODEL_BIDI(4)}; send the model name as the model endpoint lists it, without them`);
    expect(done.jobBlank.output).toContain('- title: must have a visible character, not only whitespace or invisible characters (found U+2800): send a short title in words');
    expect(done.schedule.output).toContain(`Error: invalid arguments for tool schedule_create:\n- name: must not contain ${BIDI(2)}; send the name as one line of plain text without them`);
    expect(done.workflow.output).toContain('workflow not started: invalid workflow, 2 problems:');
    expect(done.workflow.output).toMatch(/- title:? must not contain U\+202E \(a bidirectional control\), found at character 2: no control .*; send the title as one line of plain text without them/);
    expect(done.workflow.output).toMatch(/- tasks\[0\]\.label:? must not contain U\+202E \(a bidirectional control\), found at character 2: no control .*; send the label as one line of plain text without them/);

    expect((await api(harness.svc.url, 'GET', '/v1/jobs?agent_id=names-args')).body.data).toEqual([]);
    expect((await api(harness.svc.url, 'GET', '/v1/schedules?agent_id=names-args')).body.data).toEqual([]);
    expect((await api(harness.svc.url, 'GET', '/v1/workflows?agent_id=names-args')).body.data).toEqual([]);
  }, 90_000);
});
