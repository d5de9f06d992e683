/**
 * A finished workflow's one-line summary quotes failed tasks' labels; a label stored before labels
 * refused control and bidi characters must not reverse or break that line, so the summary writes
 * them as `\uXXXX` escapes (the JSON quoting already escapes C0 controls) and keeps other text.
 */
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/workflows/summary.js';
import type { WorkflowTask } from '../../src/workflows/types.js';

const failed = (index: number, label: string) => ({ index, label, status: 'failed', error: { code: 'schema_noncompliance' } }) as unknown as WorkflowTask;

describe('summarize', () => {
  it('escapes bidi controls, C1 controls and separators of a failed task label, and keeps ZWJ, ZWNJ and Hebrew', () => {
    expect(summarize([failed(0, 'a\u202Eb'), failed(1, 'c\u0085d\u2028e'), failed(2, '👩\u200D💻 می\u200Cخواهم מדריך')])).toBe(
      '3 tasks: 3 failed (task 0 "a\\u202Eb": schema_noncompliance; task 1 "c\\u0085d\\u2028e": schema_noncompliance; task 2 "👩\u200D💻 می\u200Cخواهم מדריך": schema_noncompliance)',
    );
  });
});
