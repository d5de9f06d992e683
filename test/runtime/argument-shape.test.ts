import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceScalars, unknownKeys } from '../../src/runtime/argument-shape.js';

describe('coerceScalars', () => {
  const schema = z.object({
    n: z.number(), i: z.int(), b: z.boolean(), o: z.number().optional(), d: z.number().int().default(1), s: z.string(),
    nested: z.object({ k: z.number().nullable() }).optional(), list: z.array(z.boolean()).optional(),
  });

  it('turns canonical literals into the number, integer or boolean the schema wants', () => {
    const r = coerceScalars(schema, { n: '-0.5', i: '2', b: 'true', o: '3e2', d: '7', s: '2', nested: { k: '4' }, list: ['false'] });
    expect(r.value).toEqual({ n: -0.5, i: 2, b: true, o: 300, d: 7, s: '2', nested: { k: 4 }, list: [false] });
    expect(r.coerced).toEqual([['n'], ['i'], ['b'], ['o'], ['d'], ['nested', 'k'], ['list', 0]]);
  });

  it.each(['', ' 2', '2 ', '+2', '02', '1,5', '1.000,5', '1e999', '0x10', 'NaN', 'Infinity', '2.'])('leaves %j alone for a number', (text) => {
    expect(coerceScalars(schema, { n: text }).coerced).toEqual([]);
  });

  it('takes only integer literals for integer targets, and only "true"/"false" for booleans', () => {
    expect(coerceScalars(schema, { i: '2.5' }).coerced).toEqual([]);
    expect(coerceScalars(schema, { i: '1e3' }).coerced).toEqual([]);
    expect(coerceScalars(schema, { i: '9007199254740993' }).coerced).toEqual([]);
    for (const t of ['True', 'yes', '1', '']) expect(coerceScalars(schema, { b: t }).coerced).toEqual([]);
  });

  it('does not touch a string a union accepts as it is, and enters a union branch only when the result fits', () => {
    const u = z.object({ v: z.union([z.string(), z.number()]) });
    expect(coerceScalars(u, { v: '2' }).coerced).toEqual([]);
    const du = z.discriminatedUnion('kind', [z.object({ kind: z.literal('a'), n: z.number() }), z.object({ kind: z.literal('b'), s: z.string() })]);
    expect(coerceScalars(du, { kind: 'a', n: '5' }).value).toEqual({ kind: 'a', n: 5 });
  });
});

describe('unknownKeys', () => {
  it('names keys a plain object schema would strip, at any depth', () => {
    const s = z.object({ a: z.string(), inner: z.object({ x: z.number() }), rows: z.array(z.object({ y: z.number() })) });
    expect(unknownKeys(s, { a: '1', extra: 1, inner: { x: 1, typo: 2 }, rows: [{ y: 1 }, { y: 2, z: 3 }] })).toEqual([['extra'], ['inner', 'typo'], ['rows', 1, 'z']]);
  });

  it('accepts extra keys where the schema has a catchall (looseObject / catchall)', () => {
    expect(unknownKeys(z.looseObject({ a: z.string() }), { a: '1', b: 2 })).toEqual([]);
    expect(unknownKeys(z.object({}).catchall(z.number()), { b: 2 })).toEqual([]);
  });

  it('checks the union branch zod picks: a key of another branch is unknown there', () => {
    const u = z.union([z.object({ path: z.string() }), z.object({ url: z.string(), depth: z.number() })]);
    expect(unknownKeys(u, { path: 'a', depth: 2 })).toEqual([['depth']]);
    const du = z.discriminatedUnion('mode', [z.object({ mode: z.literal('read'), path: z.string() }), z.object({ mode: z.literal('write'), path: z.string(), content: z.string() })]);
    expect(unknownKeys(z.object({ op: du }), { op: { mode: 'read', path: 'a', content: 'x' } })).toEqual([['op', 'content']]);
  });

  it('counts a key known to either side of an intersection as known', () => {
    const s = z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() }));
    expect(unknownKeys(s, { a: '1', b: '2', c: '3' })).toEqual([['c']]);
  });
});
