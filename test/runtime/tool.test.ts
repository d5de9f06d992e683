import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, textResult, toolIdentity } from '../../src/runtime/tool.js';

const base = {
  description: 'd',
  schema: z.object({}),
  describeActivity: () => null,
  execute: async () => textResult('ok'),
};

describe('defineWorkerTool contract', () => {
  it('refuses a parallel tool that is not read-only or is destructive', () => {
    expect(() => defineWorkerTool({ ...base, name: 'w', executionMode: 'parallel' })).toThrow(/executionMode 'parallel' requires isReadOnly: true/);
    expect(() => defineWorkerTool({ ...base, name: 'w', executionMode: 'parallel', isReadOnly: true, isDestructive: true })).toThrow(/isDestructive not true/);
    expect(defineWorkerTool({ ...base, name: 'r', executionMode: 'parallel', isReadOnly: true }).executionMode).toBe('parallel');
  });

  it('fills defaults: strict false, deferLoading false, isReadOnly false, isDestructive false', () => {
    const t = defineWorkerTool({ ...base, name: 's', executionMode: 'sequential' });
    expect({ strict: t.strict, deferLoading: t.deferLoading, isReadOnly: t.isReadOnly, isDestructive: t.isDestructive }).toEqual({
      strict: false, deferLoading: false, isReadOnly: false, isDestructive: false,
    });
  });

  it('refuses names the Responses API would reject', () => {
    expect(() => defineWorkerTool({ ...base, name: 'has space', executionMode: 'sequential' })).toThrow(/must match/);
    expect(() => defineWorkerTool({ ...base, name: 'ok', namespace: 'bad.ns', executionMode: 'sequential' })).toThrow(/namespace/);
  });

  it('identifies tools by namespace and name', () => {
    expect(toolIdentity({ name: 'a' })).toBe('a');
    expect(toolIdentity({ name: 'a', namespace: 'n' })).toBe('n.a');
  });
});
