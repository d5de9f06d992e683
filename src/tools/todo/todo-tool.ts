/**
 * `todo` {todos?, merge?}: the turn's plan. Without `todos` it reads the list; with `todos` and
 * `merge: false` (default) it replaces the list, with `merge: true` it patches items by id.
 * Returns the summary and the list, and emits a `plan.snapshot` presentation event with the items.
 * No activity row (describeActivity returns null). One list per turn: create one tool per turn.
 */
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../runtime/tool.js';
import { MAX_TODO_CHARS, MAX_TODOS, TODO_STATUSES, TodoList, type TodoItem } from './todo-list.js';

const item = z.object({
  id: z.string().min(1).max(64).describe('Stable id of the item, e.g. "1" or "tests"'),
  content: z.string().min(1).max(MAX_TODO_CHARS).optional().describe('What to do (required for a new item)'),
  status: z.enum(TODO_STATUSES).optional().describe('pending (default for new items) | in_progress | completed | cancelled'),
});

const schema = z.object({
  todos: z.array(item).max(MAX_TODOS).optional().describe('Items to write; omit to read the current list'),
  merge: z.boolean().optional().describe('false (default): replace the whole list; true: update the given ids and append new ones'),
});

export interface TodoDetails {
  items: TodoItem[];
  summary: string;
}

/** A `todo` tool with its own, empty list (one per turn). */
export function createTodoTool() {
  const list = new TodoList();
  return defineWorkerTool({
    name: 'todo',
    description:
      'Keep a short plan for this task as a todo list. Call with todos to write the list (merge: true to update items by id), or without to read it. Mark one item in_progress while you work on it and completed when done.',
    schema,
    executionMode: 'sequential',
    describeActivity: () => null,
    describeCompletedActivity: () => null,
    execute: async (p): Promise<AgentToolResult<TodoDetails>> => {
      if (p.todos !== undefined) list.apply(p.todos, p.merge ?? false);
      const items = list.snapshot();
      const summary = list.summary();
      const text = items.length ? `${summary}\n${list.render()}` : summary;
      return textResult(text, { items, summary }, { presentation: [{ type: 'plan.snapshot', items: items.map((i) => ({ ...i })) }] });
    },
  });
}
