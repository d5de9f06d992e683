/**
 * The todo tool: one plan per turn, replaced or merged by id, with a plan.snapshot presentation
 * event and no activity row. Calls go through the runtime's dispatcher.
 */
import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '../../../src/runtime/events.js';
import { createTodoTool, MAX_TODOS, todoFamily } from '../../../src/tools/todo/index.js';
import { call, turnContext } from '../computer/support.js';

function snapshots(events: TurnEvent[]) {
  return events.filter((e) => e.type === 'presentation').map((e) => (e.type === 'presentation' ? e.event : null));
}

describe('todo', () => {
  it('writes a list, returns the summary and list, and emits plan.snapshot with the items', async () => {
    const tools = [createTodoTool()];
    const r = await call(tools, 'todo', {
      todos: [
        { id: '1', content: 'Read the code', status: 'completed' },
        { id: '2', content: 'Write the fix', status: 'in_progress' },
        { id: '3', content: 'Run the tests' },
      ],
    });
    expect(r.isError).toBe(false);
    expect(r.output).toBe('3 todos: 1 pending, 1 in progress, 1 completed\n[x] 1: Read the code\n[~] 2: Write the fix\n[ ] 3: Run the tests');
    expect(snapshots(r.events)).toEqual([
      {
        type: 'plan.snapshot',
        items: [
          { id: '1', content: 'Read the code', status: 'completed' },
          { id: '2', content: 'Write the fix', status: 'in_progress' },
          { id: '3', content: 'Run the tests', status: 'pending' },
        ],
      },
    ]);
  });

  it('shows no activity row: both labels are null', async () => {
    const r = await call([createTodoTool()], 'todo', {});
    expect(r.startedLabel).toBeNull();
    expect(r.completedLabel).toBeNull();
    expect(r.output).toBe('no todos');
  });

  it('reads the list when todos is omitted, patches by id with merge, replaces without', async () => {
    const tools = [createTodoTool()];
    await call(tools, 'todo', { todos: [{ id: 'a', content: 'first' }, { id: 'b', content: 'second' }] });
    const merged = await call(tools, 'todo', { merge: true, todos: [{ id: 'a', status: 'completed' }, { id: 'c', content: 'third' }] });
    expect(merged.output).toBe('3 todos: 2 pending, 1 completed\n[x] a: first\n[ ] b: second\n[ ] c: third');
    const readBack = await call(tools, 'todo', {});
    expect(readBack.output).toBe(merged.output);
    const replaced = await call(tools, 'todo', { todos: [{ id: 'z', content: 'only', status: 'cancelled' }] });
    expect(replaced.output).toBe('1 todo: 1 cancelled\n[-] z: only');
  });

  it('keeps one list per turn: two turns do not share', async () => {
    const ctx = turnContext('/tmp/unused-data-dir', { families: ['todo'] });
    const turn1 = (todoFamily.create(ctx) as { tools: ReturnType<typeof createTodoTool>[] }).tools;
    const turn2 = (todoFamily.create(ctx) as { tools: ReturnType<typeof createTodoTool>[] }).tools;
    await call(turn1, 'todo', { todos: [{ id: '1', content: 'turn one' }] });
    expect((await call(turn2, 'todo', {})).output).toBe('no todos');
  });

  it('refuses bad input with a clear error and leaves the list unchanged', async () => {
    const tools = [createTodoTool()];
    await call(tools, 'todo', { todos: [{ id: '1', content: 'keep me' }] });
    const dup = await call(tools, 'todo', { todos: [{ id: 'x', content: 'a' }, { id: 'x', content: 'b' }] });
    expect(dup.output).toMatch(/^Error: .*id "x" appears twice/);
    const noContent = await call(tools, 'todo', { merge: true, todos: [{ id: 'new', status: 'pending' }] });
    expect(noContent.output).toMatch(/todo "new" has no content/);
    const badStatus = await call(tools, 'todo', { todos: [{ id: '1', content: 'x', status: 'done' }] });
    expect(badStatus.output).toMatch(/^Error: invalid arguments for tool todo/);
    const tooLong = await call(tools, 'todo', { todos: [{ id: '1', content: 'x'.repeat(4001) }] });
    expect(tooLong.isError).toBe(true);
    const tooMany = await call(tools, 'todo', { todos: Array.from({ length: MAX_TODOS + 1 }, (_, i) => ({ id: String(i), content: 'x' })) });
    expect(tooMany.isError).toBe(true);
    expect((await call(tools, 'todo', {})).output).toBe('1 todo: 1 pending\n[ ] 1: keep me');
  });

  it('merging past the cap is refused', async () => {
    const tools = [createTodoTool()];
    await call(tools, 'todo', { todos: Array.from({ length: MAX_TODOS }, (_, i) => ({ id: String(i), content: 'x' })) });
    const r = await call(tools, 'todo', { merge: true, todos: [{ id: 'one-more', content: 'y' }] });
    expect(r.output).toMatch(/would have 257 items; at most 256/);
  });

  it('is offered only when requested and never in workflow task turns', () => {
    expect(todoFamily.create(turnContext('/tmp/x', { families: ['computer'] }))).toEqual({ unavailable: 'not enabled for this turn' });
    expect(todoFamily.create({ ...turnContext('/tmp/x'), kind: 'workflow_task' })).toEqual({ unavailable: 'not allowed in workflow task turns' });
  });
});
