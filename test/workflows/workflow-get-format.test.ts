import { describe, expect, it } from 'vitest';
import { formatWorkflow, OUTPUT_BUDGET_BYTES } from '../../src/tools/workflow/format.js';
import type { WorkflowRecord, WorkflowTask } from '../../src/workflows/types.js';

function workflow(tasks: Partial<WorkflowTask>[]): WorkflowRecord {
  return {
    id: 'wf1',
    agent_id: 'a',
    title: 'big',
    status: 'running',
    concurrency: 4,
    brain: false,
    model: null,
    created_at: '2026-01-01T00:00:00.000Z',
    completed_at: null,
    summary: null,
    tasks: tasks.map((t, index) => ({ index, label: `t${index}`, prompt: 'p', result_schema: { type: 'string' }, status: 'queued', attempts: 0, turn_ids: [], ...t })),
  };
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('workflow_get output', () => {
  it('pages results so each output stays under the budget, and the pages together hold every result', () => {
    const tasks = Array.from({ length: 20 }, (_, i) => ({ status: 'succeeded' as const, attempts: 1, result: `${i}:${'é'.repeat(500)}` }));
    tasks[3] = { status: 'failed', attempts: 3, result: undefined as never, error: { code: 'empty_output', message: 'no text' } } as never;
    const wf = workflow(tasks);
    const seen: number[] = [];
    let offset: number | null = 0;
    let calls = 0;
    while (offset !== null) {
      const { text, nextResultOffset } = formatWorkflow(wf, offset);
      expect(bytes(text)).toBeLessThan(OUTPUT_BUDGET_BYTES);
      expect(text).toContain('#3 "t3": failed (3 attempts) — empty_output: no text');
      for (const m of text.matchAll(/^#(\d+): "/gm)) seen.push(Number(m[1]));
      if (nextResultOffset !== null) expect(text).toContain(`call workflow_get with result_offset ${nextResultOffset}`);
      offset = nextResultOffset;
      calls++;
    }
    expect(calls).toBeGreaterThan(1);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 3));
  });

  it('truncates a single result larger than the budget and says where the full one is', () => {
    const wf = workflow([{ status: 'succeeded', attempts: 1, result: 'x'.repeat(20_000) }]);
    const { text, nextResultOffset } = formatWorkflow(wf);
    expect(bytes(text)).toBeLessThan(OUTPUT_BUDGET_BYTES);
    expect(text).toContain('(truncated: 20006 bytes; the full result is in GET /v1/workflows/wf1)');
    expect(nextResultOffset).toBeNull();
  });

  it('says when there are no results yet', () => {
    expect(formatWorkflow(workflow([{ status: 'running', attempts: 1 }])).text).toMatch(/#0 "t0": running \(1 attempt\)\nNo results yet\.$/);
  });

  it('escapes bidi and C1 control characters of a title and task labels stored before they were refused, and keeps other text', () => {
    const wf = { ...workflow([{ label: 'a\u202Eb' }, { label: 'c\u0085d' }, { label: '👩\u200D💻 می\u200Cخواهم' }]), title: 'w\u2066x' };
    const { text } = formatWorkflow(wf);
    expect(text).toContain('Workflow wf1 "w\\u2066x": running — 3 tasks: 3 queued');
    expect(text).toContain('#0 "a\\u202Eb": queued (0 attempts)');
    expect(text).toContain('#1 "c\\u0085d": queued (0 attempts)');
    expect(text).toContain('#2 "👩\u200D💻 می\u200Cخواهم": queued (0 attempts)');
    expect(text).not.toMatch(/[\u0085\u202E\u2066]/);
  });
});
