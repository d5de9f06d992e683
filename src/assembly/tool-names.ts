/**
 * The names of every tool each family can offer, whatever the turn (a leaf module: no imports, so
 * configuration can check tool names without loading the families). The families build their tools
 * under exactly these names; `test/tools/tool-names.test.ts` checks the list against the real
 * assembler, so a tool added to a family must be added here too.
 *
 * No built-in tool has a namespace, so every identity is a plain name.
 */
export const FAMILY_TOOL_NAMES = {
  todo: ['todo'],
  computer: ['command', 'read_file', 'write_file', 'edit_file', 'apply_patch', 'ls', 'find', 'grep', 'reply_attachment'],
  web: ['web_fetch', 'web_search'],
  schedule: ['schedule_create', 'schedule_list', 'schedule_get', 'schedule_update', 'schedule_delete'],
  workflow: ['workflow_start', 'workflow_list', 'workflow_get', 'workflow_cancel'],
  clarify: ['clarify'],
  jobs: [
    'create_background_job',
    'list_background_jobs',
    'show_background_job_details',
    'send_message_to_background_job',
    'respawn_background_job',
    'stop_background_job',
  ],
  brain: ['recall', 'get_page'],
  skills: ['skill_view'],
  submit_result: ['submit_result'],
} as const satisfies Record<string, readonly string[]>;

/** Every tool name any family can offer, sorted. */
export const KNOWN_TOOL_NAMES: readonly string[] = Object.values(FAMILY_TOOL_NAMES).flat().sort();
