/**
 * Contract of the job store, run on every engine (SQLite in memory; a real Postgres with
 * TEST_DATABASE_URL): idempotent creation per source call, conditional status moves from the one
 * transition table, the per-agent running limit under concurrent starts, pending messages taken
 * once, respawn marking, newest-first pages, the calls a job waiting for approvals waits on.
 */
import { expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import type { JobRecord } from '../../src/jobs/types.js';
import { describeEachEngine, openStores, type OpenStores } from '../support/store-engines.js';

function newJob(over: Partial<JobRecord> = {}): JobRecord {
  const now = new Date().toISOString();
  return {
    id: uuidv7(), agent_id: 'a', title: 'Refactor', task: 'do it', status: 'queued', model: null, skills: null,
    source_turn_id: null, source_call_id: null, respawned_from: null, respawned_to: null, notify: true,
    turn_ids: [], pending_messages: [], pending_approvals: [], question: null, notice: null, output_text: null, error: null, attempts: 0,
    created_at: now, started_at: null, finished_at: null, updated_at: now, ...over,
  };
}

describeEachEngine('JobStore contract', (engine) => {
  const withStores = (fn: (s: OpenStores) => Promise<void>) => async () => {
    const s = await openStores(engine);
    try {
      await fn(s);
    } finally {
      await s.close();
    }
  };

  it('creates one job per source turn and call; a retry gets the first back', withStores(async ({ jobs }) => {
    const first = await jobs.insert(newJob({ source_turn_id: 't1', source_call_id: 'c1', title: 'A' }));
    expect(first).toMatchObject({ kind: 'created', job: { title: 'A', status: 'queued', notify: true, turn_ids: [] } });
    const again = await jobs.insert(newJob({ source_turn_id: 't1', source_call_id: 'c1', title: 'B' }));
    expect(again).toMatchObject({ kind: 'exists', job: { id: first.kind === 'created' ? first.job.id : '', title: 'A' } });
    const other = await jobs.insert(newJob({ source_turn_id: 't1', source_call_id: 'c2' }));
    expect(other.kind).toBe('created');
  }));

  it('keeps the skills recorded at creation (an empty list too) and null for none', withStores(async ({ jobs }) => {
    for (const skills of [['a-skill', 'b-skill'], [], null]) {
      const j = newJob({ skills });
      await jobs.insert(j);
      expect((await jobs.get(j.id))!.skills).toEqual(skills);
    }
  }));

  it('moves status only along the transition table and sets finished_at on terminal moves', withStores(async ({ jobs }) => {
    const j = newJob();
    await jobs.insert(j);
    expect(await jobs.transition(j.id, 'succeeded')).toBeUndefined(); // queued → succeeded is not a move
    expect(await jobs.transition(j.id, 'waiting_on_user')).toBeUndefined();
    const stopped = await jobs.transition(j.id, 'stopped');
    expect(stopped).toMatchObject({ status: 'stopped' });
    expect(stopped!.finished_at).not.toBeNull();
    expect(await jobs.transition(j.id, 'failed')).toBeUndefined(); // terminal never changes
    expect(await jobs.transition(j.id, 'stopped')).toBeUndefined();
  }));

  it('refuses a move decided at an earlier start: a late pass cannot apply an old turn\'s outcome to a job answered and started again', withStores(async ({ jobs }) => {
    const j = newJob();
    await jobs.insert(j);
    expect(await jobs.start(j.id, 'queued', 3)).toMatchObject({ kind: 'started', job: { attempts: 1 } });
    // Two passes saw start 1's turn ask a question; the first one's move lands.
    expect(await jobs.transition(j.id, 'waiting_on_user', { question: 'which branch?' }, { attempt: 1 })).toMatchObject({ status: 'waiting_on_user' });
    expect(await jobs.start(j.id, 'waiting_on_user', 3)).toMatchObject({ kind: 'started', job: { attempts: 2, status: 'running' } }); // answered
    // The other pass's move, delivered late: the job is running again, but at start 2.
    expect(await jobs.transition(j.id, 'waiting_on_user', { question: 'which branch?' }, { attempt: 1 })).toBeUndefined();
    expect(await jobs.transition(j.id, 'waiting_on_approval', { pending_approvals: [] }, { from: ['running'], attempt: 1 })).toBeUndefined();
    expect(await jobs.transition(j.id, 'failed', { error: { code: 'late', summary: 'late', retryable: false } }, { attempt: 1 })).toBeUndefined();
    expect(await jobs.get(j.id)).toMatchObject({ status: 'running', attempts: 2, question: null, error: null });
    expect(await jobs.transition(j.id, 'succeeded', { output_text: 'done' }, { attempt: 2 })).toMatchObject({ status: 'succeeded', output_text: 'done' });
  }));

  it('starts at most `limit` jobs per agent, also when started concurrently', withStores(async ({ jobs }) => {
    const all = Array.from({ length: 5 }, () => newJob());
    for (const j of all) await jobs.insert(j);
    await jobs.insert(newJob({ agent_id: 'other' }));
    const outcomes = await Promise.all(all.map((j) => jobs.start(j.id, 'queued', 3)));
    expect(outcomes.filter((o) => o.kind === 'started')).toHaveLength(3);
    expect(outcomes.filter((o) => o.kind === 'agent_limit')).toHaveLength(2);
    expect(await jobs.runningCount('a')).toBe(3);
    expect(await jobs.runningCount('other')).toBe(0);
    const started = outcomes.find((o) => o.kind === 'started');
    expect(started).toMatchObject({ job: { status: 'running', attempts: 1 } });
    expect((await jobs.start(all[0].id, 'queued', 3)).kind).toBe(outcomes[0].kind === 'started' ? 'not_startable' : 'agent_limit');
  }));

  it('takes pending messages exactly once, at the start that delivers them', withStores(async ({ jobs }) => {
    const j = newJob();
    await jobs.insert(j);
    expect(await jobs.addPending(j.id, 'first', ['queued'])).toMatchObject({ pending_messages: ['first'] });
    await jobs.addPending(j.id, 'second', ['queued']);
    const s = await jobs.start(j.id, 'queued', 3);
    expect(s).toMatchObject({ kind: 'started', job: { pending_messages: ['first', 'second'] } });
    expect(await jobs.addTurn(j.id, 1, 'turn-1')).toMatchObject({ added: true, job: { pending_messages: [], turn_ids: ['turn-1'] } });
    expect(await jobs.addPending(j.id, 'late', ['queued', 'waiting_on_user'])).toBeUndefined();
    const waiting = await jobs.transition(j.id, 'waiting_on_user', { question: 'Which branch?' });
    expect(waiting).toMatchObject({ status: 'waiting_on_user', question: 'Which branch?' });
    await jobs.addPending(j.id, 'main', ['waiting_on_user']);
    expect(await jobs.start(j.id, 'waiting_on_user', 3)).toMatchObject({ kind: 'started', job: { attempts: 2, question: null, pending_messages: ['main'] } });
  }));

  it('keeps the calls a job waits on while waiting_on_approval, resumes only from there, and frees its slot meanwhile', withStores(async ({ jobs }) => {
    const j = newJob();
    const other = newJob();
    await jobs.insert(j);
    await jobs.insert(other);
    await jobs.start(j.id, 'queued', 1);
    const call = { turn_id: 't1', call_id: 'call_1', name: 'command', label: 'Run `ls`', expires_at: '2030-01-01T00:00:00.000Z' };
    expect(await jobs.setPendingApprovals(j.id, [], [call])).toBeUndefined(); // only while waiting_on_approval
    const waiting = await jobs.transition(j.id, 'waiting_on_approval', { pending_approvals: [call] }, { from: ['running'] });
    expect(waiting).toMatchObject({ status: 'waiting_on_approval', pending_approvals: [call] });
    expect(await jobs.runningCount('a')).toBe(0);
    expect(await jobs.start(other.id, 'queued', 1)).toMatchObject({ kind: 'started' });
    const two = [call, { ...call, call_id: 'call_2', label: null }];
    expect(await jobs.setPendingApprovals(j.id, [call], two)).toMatchObject({ pending_approvals: two });
    expect(await jobs.setPendingApprovals(j.id, [call], [])).toBeUndefined(); // changed meanwhile: the list is not what the caller saw
    expect((await jobs.get(j.id))!.pending_approvals).toEqual(two);
    // A plain move to running is narrowed to its source: the queued one never bypasses the limit.
    expect(await jobs.transition(other.id, 'running', {}, { from: ['waiting_on_approval'] })).toBeUndefined();
    const resumed = await jobs.transition(j.id, 'running', { pending_approvals: [] }, { from: ['waiting_on_approval'] });
    expect(resumed).toMatchObject({ status: 'running', pending_approvals: [] });
    await jobs.transition(j.id, 'waiting_on_approval', { pending_approvals: [call] }, { from: ['running'] });
    expect(await jobs.transition(j.id, 'stopped')).toMatchObject({ status: 'stopped', pending_approvals: [] });
  }));

  it('keeps a notice with the move that caused it until it is cleared as delivered', withStores(async ({ jobs }) => {
    const j = newJob();
    await jobs.insert(j);
    await jobs.start(j.id, 'queued', 3);
    expect(await jobs.transition(j.id, 'succeeded', { output_text: 'done', notice: 'Job done' })).toMatchObject({ notice: 'Job done', output_text: 'done' });
    expect(await jobs.idsWithNotice()).toEqual([j.id]);
    await jobs.clearNotice(j.id, 'another');
    expect(await jobs.idsWithNotice()).toEqual([j.id]);
    await jobs.clearNotice(j.id, 'Job done');
    expect(await jobs.idsWithNotice()).toEqual([]);
  }));

  it('records one turn per attempt; repeating an attempt, even with the same turn, changes nothing and is not "added"', withStores(async ({ jobs }) => {
    const j = newJob();
    await jobs.insert(j);
    expect(await jobs.addTurn(j.id, 1, 'turn-1')).toMatchObject({ added: true, job: { turn_ids: ['turn-1'] } });
    // A second instance recording the same start (the same turn, by its idempotency key) must not announce it again.
    expect(await jobs.addTurn(j.id, 1, 'turn-1')).toMatchObject({ added: false, job: { turn_ids: ['turn-1'] } });
    expect(await jobs.addTurn(j.id, 1, 'turn-x')).toMatchObject({ added: false, job: { turn_ids: ['turn-1'] } });
    expect(await jobs.addTurn(j.id, 2, 'turn-2')).toMatchObject({ added: true, job: { turn_ids: ['turn-1', 'turn-2'] } });
    expect(await jobs.addTurn(uuidv7(), 1, 'turn-1')).toBeUndefined();
  }));

  it('respawns a terminal job once and refuses live or already respawned sources', withStores(async ({ jobs }) => {
    const src = newJob();
    await jobs.insert(src);
    expect(await jobs.insert(newJob(), { respawnOf: src.id })).toEqual({ kind: 'source_not_terminal', status: 'queued' });
    await jobs.transition(src.id, 'stopped');
    const next = newJob({ respawned_from: src.id });
    expect((await jobs.insert(next, { respawnOf: src.id })).kind).toBe('created');
    expect(await jobs.get(src.id)).toMatchObject({ respawned_to: next.id });
    expect(await jobs.insert(newJob(), { respawnOf: src.id })).toEqual({ kind: 'already_respawned', by: next.id });
    expect(await jobs.insert(newJob(), { respawnOf: uuidv7() })).toEqual({ kind: 'source_not_found' });
  }));

  it('lists newest first with status and agent filters and a cursor', withStores(async ({ jobs }) => {
    const made: JobRecord[] = [];
    for (let i = 0; i < 5; i++) {
      const j = newJob({ title: `job ${i}` });
      await jobs.insert(j);
      made.push(j);
    }
    await jobs.insert(newJob({ agent_id: 'b' }));
    await jobs.transition(made[1].id, 'stopped');
    const page1 = await jobs.list({ agent_id: 'a', limit: 2 });
    expect(page1.jobs.map((j) => j.title)).toEqual(['job 4', 'job 3']);
    const page2 = await jobs.list({ agent_id: 'a', limit: 2, cursor: page1.next_cursor! });
    expect(page2.jobs.map((j) => j.title)).toEqual(['job 2', 'job 1']);
    const live = await jobs.list({ agent_id: 'a', statuses: ['queued', 'running', 'waiting_on_user'] });
    expect(live.jobs.map((j) => j.title)).toEqual(['job 4', 'job 3', 'job 2', 'job 0']);
    expect(live.next_cursor).toBeNull();
    expect(await jobs.idsWithStatus(['stopped'])).toEqual([made[1].id]);
  }));
});
