import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileTool } from '../../src/runtime/compiled-tool.js';
import { stripOptionalNulls, toStrictJsonSchema } from '../../src/runtime/strict-schema.js';
import { validateToolArguments } from '../../src/runtime/arguments.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';

const GOLDEN_DIR = path.join(import.meta.dirname, 'golden');

/** Compare with test/runtime/golden/<name>.json; UPDATE_GOLDEN=1 rewrites the file. */
function expectGolden(name: string, value: unknown): void {
  const file = path.join(GOLDEN_DIR, `${name}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, text);
  expect(existsSync(file), `golden file ${file} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

function strictTool(name: string, schema: z.ZodObject) {
  return defineWorkerTool({
    name,
    description: name,
    schema,
    strict: true,
    executionMode: 'sequential',
    describeActivity: () => null,
    execute: async () => textResult('ok'),
  });
}

const cases: Record<string, z.ZodObject> = {
  'strict-optional': z.object({ path: z.string(), limit: z.number().int().optional(), offset: z.number().int().default(0) }),
  'strict-nullable': z.object({ note: z.string().nullable(), maybe: z.string().nullable().optional() }),
  'strict-enum': z.object({ mode: z.enum(['read', 'write']), level: z.enum(['low', 'high']).optional() }),
  'strict-nested-object': z.object({
    target: z.object({ host: z.string(), port: z.number().int().min(1).max(65535).optional() }),
    options: z.object({ verbose: z.boolean() }).optional(),
  }),
  'strict-array': z.object({
    items: z.array(z.object({ id: z.string(), tags: z.array(z.string()).optional() })),
    ids: z.array(z.number()).optional(),
  }),
  'strict-union': z.object({
    value: z.union([z.string(), z.number()]),
    shape: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('circle'), r: z.number() }),
      z.object({ kind: z.literal('rect'), w: z.number(), h: z.number().optional() }),
    ]).optional(),
  }),
};

describe('strict normalization (OpenAI Structured Outputs supported-schema rules)', () => {
  for (const [name, schema] of Object.entries(cases)) {
    it(`matches the golden file ${name}.json`, () => {
      expectGolden(name, compileTool(strictTool(name.replace(/-/g, '_'), schema)).parameters);
    });
  }

  it('makes every property required, optional ones nullable, and closes every object', () => {
    const p = compileTool(strictTool('t', cases['strict-nested-object'])).parameters as any;
    expect(p.required).toEqual(['target', 'options']);
    expect(p.additionalProperties).toBe(false);
    expect(p.properties.target.additionalProperties).toBe(false);
    expect(p.properties.target.required).toEqual(['host', 'port']);
    expect(p.properties.target.properties.port.type).toEqual(['integer', 'null']);
    expect(p.properties.options.anyOf ?? p.properties.options.type).toBeDefined();
    expect(JSON.stringify(p)).not.toContain('"default"');
  });

  it('adds null to an enum made nullable', () => {
    const p = compileTool(strictTool('t', cases['strict-enum'])).parameters as any;
    expect(p.properties.level).toEqual({ type: ['string', 'null'], enum: ['low', 'high', null] });
    expect(p.properties.mode).toEqual({ type: 'string', enum: ['read', 'write'] });
  });

  it('refuses records at definition time, saying why', () => {
    expect(() => strictTool('rec', z.object({ env: z.record(z.string(), z.string()) }))).toThrow(
      /tool rec: strict mode cannot express the schema at env: records/,
    );
  });

  it('refuses open objects at definition time, saying why', () => {
    expect(() => strictTool('open', z.object({ x: z.object({ a: z.string() }).passthrough() }))).toThrow(
      /tool open: strict mode cannot express the schema at x: open objects/,
    );
  });

  it('keeps $defs at the root for recursive schemas', () => {
    const Node: z.ZodType = z.object({ name: z.string(), get children() { return z.array(Node).optional(); } });
    const p = compileTool(strictTool('tree', z.object({ root: Node }))).parameters as any;
    expect(Object.keys(p.$defs)).toHaveLength(1);
    const def = Object.values(p.$defs)[0] as any;
    expect(def.additionalProperties).toBe(false);
    expect(def.required).toEqual(['name', 'children']);
  });

  it('maps the model\'s null for an optional field back to absent before zod (defaults apply)', () => {
    const tool = strictTool('read', cases['strict-optional']);
    const r = validateToolArguments(tool, '{"path":"a.txt","limit":null,"offset":null}');
    expect(r).toEqual({ ok: true, params: { path: 'a.txt', offset: 0 } });
  });

  it('keeps null where the field itself is nullable', () => {
    const tool = strictTool('n', cases['strict-nullable']);
    const r = validateToolArguments(tool, '{"note":null,"maybe":null}');
    expect(r).toEqual({ ok: true, params: { note: null, maybe: null } });
  });

  it('maps nulls inside nested objects and arrays', () => {
    const input = compileTool(strictTool('arr', cases['strict-array'])).inputSchema;
    const v = stripOptionalNulls({ items: [{ id: 'a', tags: null }], ids: null }, input);
    expect(v).toEqual({ items: [{ id: 'a' }] });
  });

  it('does not modify its input schema', () => {
    const input = { type: 'object', properties: { a: { type: 'string', default: 'x' } } };
    const copy = structuredClone(input);
    toStrictJsonSchema(input, 't');
    expect(input).toEqual(copy);
  });
});
