import { describe, expect, it } from 'vitest';
import { checkResultSchema, MAX_DEPTH } from '../../src/workflows/result-schema.js';
import { validateResult } from '../../src/workflows/result-validator.js';
import { MAX_PATTERN_CHARS } from '../../src/workflows/result-pattern.js';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

describe('result schema subset', () => {
  it('accepts every allowed type and keyword', () => {
    const schema = obj({
      name: { type: 'string', description: 'who', minLength: 1, maxLength: 40, pattern: '^[A-Z]' },
      kind: { type: 'string', enum: ['a', 'b'] },
      score: { type: 'number', minimum: 0, maximum: 1 },
      count: { type: 'integer', multipleOf: 2, enum: [2, 4] },
      ok: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' }, minItems: 0, maxItems: 5 },
      nested: obj({ inner: { type: 'integer' } }, { description: 'nested object' }),
    });
    expect(checkResultSchema(schema)).toEqual([]);
    expect(checkResultSchema({ type: 'string' })).toEqual([]);
  });

  it('rejects anyOf, naming where it is', () => {
    const errors = checkResultSchema(obj({ v: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }));
    expect(errors).toContain('#/properties/v/type: missing; use one of object, array, string, number, integer, boolean');
    expect(errors).toContain('#/properties/v/anyOf: "anyOf" is not allowed (one plain type per node)');
    expect(checkResultSchema(obj({ v: { type: 'string', anyOf: [] } }))[0]).toMatch(/^#\/properties\/v\/anyOf: "anyOf" is not allowed for type string/);
  });

  it('rejects records and open objects', () => {
    const record = { type: 'object', additionalProperties: { type: 'string' } };
    const errors = checkResultSchema(record);
    expect(errors.some((e) => e.startsWith('#/additionalProperties: must be false'))).toBe(true);
    expect(errors.some((e) => e.startsWith('#/properties: an object needs "properties"'))).toBe(true);
  });

  it('rejects an object without additionalProperties: false, and one with optional properties', () => {
    const missing = checkResultSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(missing).toEqual([
      '#/additionalProperties: must be false (missing) — open objects and records (maps with free keys) are not allowed; list every property',
    ]);
    const optional = checkResultSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'], additionalProperties: false });
    expect(optional).toEqual(['#/required: must list every property; missing "b"']);
  });

  it('lists every violation, not only the first', () => {
    const errors = checkResultSchema(
      obj({
        a: { type: ['string', 'null'] },
        b: { type: 'string', format: 'email' },
        c: { type: 'date' },
        d: { type: 'array' },
        e: { type: 'integer', minimum: 5, maximum: 1 },
        f: { type: 'string', pattern: '(' },
        g: { type: 'integer', enum: [1, 1.5] },
      }),
    );
    expect(errors).toHaveLength(7);
    expect(errors[0]).toMatch(/^#\/properties\/a\/type: must be a single type/);
    expect(errors[1]).toMatch(/^#\/properties\/b\/format: "format" is not allowed for type string/);
    expect(errors[2]).toMatch(/^#\/properties\/c\/type: "date" is not allowed/);
    expect(errors[3]).toMatch(/^#\/properties\/d: an array needs "items"/);
    expect(errors[4]).toMatch(/^#\/properties\/e: minimum \(5\) is greater than maximum \(1\)/);
    expect(errors[5]).toMatch(/^#\/properties\/f\/pattern: not a valid regular expression/);
    expect(errors[6]).toMatch(/^#\/properties\/g\/enum: values 1.5 are not of type integer/);
  });

  it('limits depth and properties per object', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 1; i < MAX_DEPTH; i++) deep = { type: 'array', items: deep };
    expect(checkResultSchema(deep)).toEqual([]);
    const tooDeep = { type: 'array', items: deep };
    expect(checkResultSchema(tooDeep)).toEqual([`#${'/items'.repeat(MAX_DEPTH)}: nesting deeper than ${MAX_DEPTH} levels`]);
    const many = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`p${i}`, { type: 'string' }]));
    expect(checkResultSchema(obj(many))).toEqual(['#/properties: 129 properties; at most 128 per object']);
  });

  it('rejects non-schemas without throwing', () => {
    expect(checkResultSchema(null)).toEqual(['#: must be a schema object like {"type": "string"}']);
    expect(checkResultSchema('string')).toEqual(['#: must be a schema object like {"type": "string"}']);
    expect(checkResultSchema(undefined)).toEqual(['#: must be a schema object like {"type": "string"}']);
  });
});

describe('result re-validation (Ajv)', () => {
  const schema = obj({ count: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } } });

  it('accepts a matching value', () => {
    expect(validateResult(schema, { count: 3, name: 'n', tags: ['x'] })).toEqual([]);
  });

  it('checks exact types: an integer rejects 1.5 and "1"', () => {
    expect(validateResult(schema, { count: 1.5, name: 'n', tags: [] })).toEqual(['result.count: must be integer (got 1.5)']);
    expect(validateResult(schema, { count: '1', name: 'n', tags: [] })).toEqual(['result.count: must be integer (got "1")']);
  });

  it('names extra and missing properties and bad array elements', () => {
    const errors = validateResult(schema, { count: 1, extra: true, tags: ['x', 'z'] });
    expect(errors).toEqual(
      expect.arrayContaining([
        'result: must NOT have additional property "extra"',
        'result: missing required property "name"',
        'result.tags[1]: must be one of ["x","y"] (got "z")',
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  it('treats a missing result as a violation', () => {
    expect(validateResult(schema, undefined)).toEqual(['result: missing (call submit_result with {"result": <value>})']);
  });
});

describe('result pattern (RE2) and multipleOf', () => {
  const evil = { type: 'string', pattern: '^(a+)+$' };

  // A backtracking engine needs ~25 s (doubling per extra "a") for this input; RE2 is linear.
  // The tight timeout turns a regression into a failure instead of a passing slow run.
  it('matches a catastrophic-backtracking pattern in linear time, with the right answer', { timeout: 2000 }, () => {
    expect(checkResultSchema(evil)).toEqual([]);
    expect(validateResult(evil, 'a'.repeat(29) + '!')).toEqual(['result: must match pattern "^(a+)+$"']);
    expect(validateResult(evil, 'a'.repeat(5000) + '!')).toHaveLength(1);
    expect(validateResult(evil, 'a'.repeat(5000))).toEqual([]);
  });

  it('keeps JSON Schema pattern semantics: unanchored search, unicode escapes, distinct patterns', () => {
    expect(validateResult({ type: 'string', pattern: 'b+' }, 'abbc')).toEqual([]);
    expect(validateResult({ type: 'string', pattern: '^b+$' }, 'abbc')).toEqual(['result: must match pattern "^b+$"']);
    expect(validateResult({ type: 'string', pattern: '^\\u00e9$' }, 'é')).toEqual([]);
    expect(validateResult({ type: 'string', pattern: '^\\u00e9$' }, 'e')).toHaveLength(1);
    const two = obj({ a: { type: 'string', pattern: '^x$' }, b: { type: 'string', pattern: '^y$' } });
    expect(validateResult(two, { a: 'x', b: 'y' })).toEqual([]);
    expect(validateResult(two, { a: 'y', b: 'x' })).toEqual(['result.a: must match pattern "^x$"', 'result.b: must match pattern "^y$"']);
  });

  it('refuses lookaround and backreferences at creation, saying why', () => {
    const errors = checkResultSchema(obj({ a: { type: 'string', pattern: '^(?=.*\\d)\\w+$' }, b: { type: 'string', pattern: '(a)\\1' }, c: { type: 'string', pattern: '(?<!x)y' } }));
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/^#\/properties\/a\/pattern: not supported: .*RE2.*no lookahead/);
    expect(errors[1]).toMatch(/^#\/properties\/b\/pattern: not supported: .*backreferences/);
    expect(errors[2]).toMatch(/^#\/properties\/c\/pattern: not supported/);
  });

  it(`refuses a pattern longer than ${MAX_PATTERN_CHARS} characters`, () => {
    expect(checkResultSchema({ type: 'string', pattern: 'a'.repeat(MAX_PATTERN_CHARS) })).toEqual([]);
    expect(checkResultSchema({ type: 'string', pattern: 'a'.repeat(MAX_PATTERN_CHARS + 1) })).toEqual([
      `#/pattern: is ${MAX_PATTERN_CHARS + 1} characters; the limit is ${MAX_PATTERN_CHARS}`,
    ]);
  });

  it('reports a stored schema whose pattern RE2 cannot compile as a violation, without throwing', () => {
    const errors = validateResult({ type: 'string', pattern: '(?=a)a' }, 'a');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^result: the task's result_schema cannot be checked \(not supported:/);
  });

  it('accepts decimal multiples despite floating point (0.3 is a multiple of 0.1, 0.35 is not)', () => {
    const schema = { type: 'number', multipleOf: 0.1 };
    expect(checkResultSchema(schema)).toEqual([]);
    expect(validateResult(schema, 0.3)).toEqual([]);
    expect(validateResult(schema, 0.7)).toEqual([]);
    expect(validateResult(schema, 0.35)).toEqual(['result: must be multiple of 0.1']);
    expect(validateResult({ type: 'number', multipleOf: 0.01 }, 1.15)).toEqual([]);
    expect(validateResult({ type: 'integer', multipleOf: 3 }, 7)).toEqual(['result: must be multiple of 3']);
  });
});
