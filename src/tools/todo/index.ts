/** Todo family (the turn's plan): re-exports only. */
export { todoFamily } from './family.js';
export { createTodoTool, type TodoDetails } from './todo-tool.js';
export { TodoList, TodoError, MAX_TODOS, MAX_TODO_CHARS, TODO_STATUSES, type TodoItem, type TodoInput, type TodoStatus } from './todo-list.js';
