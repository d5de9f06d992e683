/**
 * The plan of one turn: an ordered list of todo items, replaced or patched by id. Pure state,
 * no I/O; the `todo` tool owns one instance per turn.
 */

export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

/** Max items in one list. */
export const MAX_TODOS = 256;
/** Max characters of one item's content. */
export const MAX_TODO_CHARS = 4000;

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

/** An item as a call gives it: in a merge, content and status may be left out for known ids. */
export interface TodoInput {
  id: string;
  content?: string;
  status?: TodoStatus;
}

/** Bad input; the message says what to change. */
export class TodoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TodoError';
  }
}

export class TodoList {
  private items: TodoItem[] = [];

  /** A copy of the items, in order. */
  snapshot(): TodoItem[] {
    return this.items.map((i) => ({ ...i }));
  }

  /**
   * Apply one call's items. `merge: false` replaces the list (every item needs content; status
   * defaults to pending); `merge: true` updates known ids in place and appends new ones.
   * All or nothing: on a TodoError the list is unchanged.
   * @throws TodoError for duplicate ids, missing content of a new item, or more than MAX_TODOS items.
   */
  apply(inputs: TodoInput[], merge: boolean): void {
    const seen = new Set<string>();
    for (const t of inputs) {
      if (seen.has(t.id)) throw new TodoError(`id ${JSON.stringify(t.id)} appears twice in todos; ids must be unique`);
      seen.add(t.id);
    }
    const next = merge ? this.snapshot() : [];
    for (const t of inputs) {
      const known = next.find((i) => i.id === t.id);
      if (known) {
        if (t.content !== undefined) known.content = t.content;
        if (t.status !== undefined) known.status = t.status;
        continue;
      }
      if (t.content === undefined) {
        throw new TodoError(`todo ${JSON.stringify(t.id)} has no content${merge ? ' (it is not in the list yet, so it needs content)' : ''}`);
      }
      next.push({ id: t.id, content: t.content, status: t.status ?? 'pending' });
    }
    if (next.length > MAX_TODOS) throw new TodoError(`the list would have ${next.length} items; at most ${MAX_TODOS} are allowed`);
    this.items = next;
  }

  /** e.g. "4 todos: 1 completed, 1 in progress, 2 pending" (or "no todos"). */
  summary(): string {
    if (this.items.length === 0) return 'no todos';
    const counts = TODO_STATUSES.map((s) => [s, this.items.filter((i) => i.status === s).length] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s.replace('_', ' ')}`);
    return `${this.items.length} ${this.items.length === 1 ? 'todo' : 'todos'}: ${counts.join(', ')}`;
  }

  /** One line per item: `[x]` completed, `[~]` in progress, `[ ]` pending, `[-]` cancelled. */
  render(): string {
    const mark: Record<TodoStatus, string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]', cancelled: '[-]' };
    return this.items.map((i) => `${mark[i.status]} ${i.id}: ${i.content}`).join('\n');
  }
}
