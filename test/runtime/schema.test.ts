import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileTool } from '../../src/runtime/compiled-tool.js';
import { zodToJsonSchema } from '../../src/runtime/schema.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { message } from '../support/scripted-responses-server.js';

function tool(spec: Partial<Parameters<typeof defineWorkerTool>[0]> & { name: string }) {
  return defineWorkerTool({
    description: `the ${spec.name} tool`,
    schema: z.object({}),
    executionMode: 'sequential',
    describeActivity: () => null,
    execute: async () => textResult('ok'),
    ...spec,
  });
}

describe('schema collection from zod', () => {
  it('uses the input side: fields with defaults are not required', () => {
    const s = zodToJsonSchema(z.object({ a: z.string(), b: z.number().default(3) }), 't');
    expect(s.required).toEqual(['a']);
  });

  it('drops $schema and the safe-integer bounds zod adds for .int(), keeping real bounds', () => {
    const s = zodToJsonSchema(z.object({ n: z.number().int(), m: z.number().int().min(1).max(10) }), 't') as any;
    expect(s.$schema).toBeUndefined();
    expect(s.properties.n).toEqual({ type: 'integer' });
    expect(s.properties.m).toEqual({ type: 'integer', minimum: 1, maximum: 10 });
  });

  it('refuses a non-object root, naming the tool', () => {
    expect(() => tool({ name: 'bad_root', schema: z.string() as unknown as z.ZodObject })).toThrow(
      'tool bad_root: function tool parameters must use a root object schema',
    );
    expect(() => tool({ name: 'bad_json', jsonSchema: { type: 'array', items: {} } })).toThrow(
      'tool bad_json: function tool parameters must use a root object schema',
    );
  });

  it('converts a schema object once: tools made per turn from one module-level schema share one frozen result', () => {
    const shared = z.object({ q: z.string(), n: z.number().int().optional() });
    const first = compileTool(tool({ name: 'a', schema: shared })).inputSchema;
    const second = compileTool(tool({ name: 'b', schema: shared })).inputSchema;
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.properties)).toBe(true);
    expect(() => {
      (first.properties as Record<string, unknown>).extra = {};
    }).toThrow(TypeError);
    // strict conversion builds its own object from the shared one
    const strict = compileTool(tool({ name: 'c', schema: shared, strict: true })).parameters;
    expect(strict).not.toBe(first);
    expect(strict.required).toEqual(['q', 'n']);
    expect(first.required).toEqual(['q']);
    // a different schema object of the same shape is converted on its own
    expect(zodToJsonSchema(z.object({ q: z.string() }), 'd')).not.toBe(first);
  });

  it('throws again for a schema zod cannot represent (errors are not cached)', () => {
    const bad = z.object({ when: z.date() });
    expect(() => zodToJsonSchema(bad, 'dated')).toThrow(/tool dated: its zod schema cannot be expressed/);
    expect(() => zodToJsonSchema(bad, 'dated')).toThrow(/tool dated/);
  });

  it('gives the raw jsonSchema object itself as parameters', () => {
    const jsonSchema = { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['n'] };
    expect(compileTool(tool({ name: 'raw', jsonSchema, schema: z.object({ n: z.number() }) })).parameters).toBe(jsonSchema);
  });
});

describe('schema as sent to the provider', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => cleanup?.());

  it('sends jsonSchema byte-for-byte, constraints included', async () => {
    const jsonSchema = {
      type: 'object',
      description: 'Ünïcode & "quotes"',
      properties: { n: { type: 'integer', minimum: 1, maximum: 5, multipleOf: 1 }, s: { type: 'string', pattern: '^[a-z]+$' } },
      required: ['n'],
      additionalProperties: false,
      'x-extra': [1, 2.5, null],
    };
    const { server } = await runScriptedTurn({
      tools: [tool({ name: 'raw', jsonSchema, schema: z.object({ n: z.number() }) })],
      script: [{ output: [message('hi')] }],
    });
    expect(server.requests[0].rawBody).toContain(`"parameters":${JSON.stringify(jsonSchema)}`);
    expect(server.requests[0].body.tools[0].parameters).toEqual(jsonSchema);
  });

  it('sends strict explicitly on every function tool', async () => {
    const { server } = await runScriptedTurn({
      tools: [tool({ name: 'loose' }), tool({ name: 'tight', strict: true })],
      script: [{ output: [message('hi')] }],
    });
    expect(server.requests[0].body.tools.map((t: any) => [t.name, t.strict])).toEqual([['loose', false], ['tight', true]]);
  });
});
