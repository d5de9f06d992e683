import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildProviderTools, providerToolNames } from '../../src/runtime/provider-tools.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import type { AnyWorkerAgentTool } from '../../src/runtime/tool.js';

function tool(name: string, extra: Record<string, unknown> = {}): AnyWorkerAgentTool {
  return defineWorkerTool({
    name,
    description: `does ${name}`,
    schema: z.object({ x: z.string().optional() }),
    executionMode: 'sequential',
    describeActivity: () => null,
    execute: async () => textResult('ok'),
    ...extra,
  });
}

describe('buildProviderTools', () => {
  const set = [
    tool('zeta'),
    tool('send', { namespace: 'mail', namespaceDescription: 'Email tools' }),
    tool('alpha'),
    tool('list', { namespace: 'mail', namespaceDescription: 'ignored: first one wins' }),
    tool('create', { namespace: 'crm' }),
  ];

  it('orders root tools by name, then namespace groups by namespace and name', () => {
    const out = buildProviderTools(set);
    expect(providerToolNames(out)).toEqual(['alpha', 'zeta', 'crm.create', 'mail.list', 'mail.send']);
    expect(out.map((t) => t.type)).toEqual(['function', 'function', 'namespace', 'namespace']);
  });

  it('is identical for any assembly order (prompt caching)', () => {
    const reversed = [...set].reverse();
    const a = JSON.stringify(buildProviderTools(set));
    const b = JSON.stringify(buildProviderTools(reversed));
    // The namespace description is "first in assembly order", so compare with it fixed.
    expect(b.replace('ignored: first one wins', 'Email tools')).toBe(a);
  });

  it('groups namespaced tools into one namespace tool with the first description', () => {
    const mail = buildProviderTools(set).find((t) => t.type === 'namespace' && t.name === 'mail') as any;
    expect(mail.description).toBe('Email tools');
    expect(mail.tools.map((t: any) => t.name)).toEqual(['list', 'send']);
    expect(mail.tools[0]).toMatchObject({ type: 'function', strict: false, description: 'does list' });
    const crm = buildProviderTools(set).find((t) => t.type === 'namespace' && t.name === 'crm') as any;
    expect(crm.description).toBe('Tools in the crm namespace.');
  });

  it('refuses two tools with the same identity', () => {
    expect(() => buildProviderTools([tool('a'), tool('a')])).toThrow("two tools named a in one turn's tool set");
    expect(() => buildProviderTools([tool('a', { namespace: 'n' }), tool('a')])).not.toThrow();
  });

  it('client mode keeps deferred tools out and adds a tool_search function until loaded', () => {
    const tools = [tool('visible'), tool('hidden', { deferLoading: true })];
    expect(providerToolNames(buildProviderTools(tools))).toEqual(['tool_search', 'visible']);
    expect(providerToolNames(buildProviderTools(tools, { loaded: new Set(['hidden']) }))).toEqual(['hidden', 'tool_search', 'visible']);
  });

  it('hosted mode sends deferred tools with defer_loading and a tool_search tool', () => {
    const tools = [tool('visible'), tool('hidden', { deferLoading: true }), tool('deep', { namespace: 'ns', deferLoading: true })];
    const out = buildProviderTools(tools, { toolSearchMode: 'hosted' }) as any[];
    expect(out.find((t) => t.name === 'hidden')).toMatchObject({ defer_loading: true });
    expect(out.find((t) => t.name === 'visible').defer_loading).toBeUndefined();
    expect(out.find((t) => t.name === 'ns').tools[0]).toMatchObject({ name: 'deep', defer_loading: true });
    expect(out.at(-1)).toEqual({ type: 'tool_search' });
  });

  it('offers only the listed identities when onlyTools is given', () => {
    expect(providerToolNames(buildProviderTools(set, { onlyTools: ['alpha', 'mail.send'] }))).toEqual(['alpha', 'mail.send']);
  });
});
