import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateToolArguments } from '../../src/runtime/arguments.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';

const readFile = defineWorkerTool({
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string().min(1), limit: z.number().int().max(1000).optional(), ranges: z.array(z.object({ from: z.number() })).optional() }),
  executionMode: 'parallel',
  isReadOnly: true,
  describeActivity: (p) => `Reading ${p.path}`,
  execute: async () => textResult('ok'),
});

describe('validateToolArguments', () => {
  it('returns validated params', () => {
    expect(validateToolArguments(readFile, '{"path":"a","limit":5}')).toEqual({ ok: true, params: { path: 'a', limit: 5 } });
  });

  it('records which repair step fixed the call', () => {
    expect(validateToolArguments(readFile, '```\n{"path":"a"}\n```')).toEqual({ ok: true, params: { path: 'a' }, repaired: 'code_fence' });
  });

  it('gives an Error: text naming the tool, each invalid path and the expected parameters', () => {
    const r = validateToolArguments(readFile, '{"limit":5000,"ranges":[{"from":"x"}]}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.startsWith('Error: invalid arguments for tool read_file:')).toBe(true);
    expect(r.error).toMatch(/^- path: /m);
    expect(r.error).toMatch(/^- limit: .*1000/m);
    expect(r.error).toMatch(/^- ranges\[0\]\.from: /m);
    expect(r.error).toContain('Expected parameters: {"type":"object","properties":{"path"');
  });

  it('explains unparseable arguments with the expected parameters', () => {
    const r = validateToolArguments(readFile, '{"path":"unterminated');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatch(/^Error: invalid arguments for tool read_file: .*cut off inside a string/);
    expect(r.error).toContain('Expected parameters:');
  });

  it('validates empty arguments as {} against the schema', () => {
    const r = validateToolArguments(readFile, '');
    expect(r).toMatchObject({ ok: false, repaired: 'empty' });
  });
});
