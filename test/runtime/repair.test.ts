import { describe, expect, it } from 'vitest';
import { MAX_ARGUMENTS_BYTES, MAX_REPAIR_BYTES, parseArguments } from '../../src/runtime/repair.js';

describe('repair ladder for function-call arguments', () => {
  it('parses valid JSON without recording a repair', () => {
    expect(parseArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('treats empty or whitespace arguments as {}', () => {
    expect(parseArguments('')).toEqual({ ok: true, value: {}, repaired: 'empty' });
    expect(parseArguments(' \n\t')).toEqual({ ok: true, value: {}, repaired: 'empty' });
  });

  it('strips a Markdown code fence', () => {
    expect(parseArguments('```json\n{"path":"a.txt"}\n```')).toEqual({ ok: true, value: { path: 'a.txt' }, repaired: 'code_fence' });
  });

  it('strips prose around the object', () => {
    expect(parseArguments('Here are the arguments: {"path":"a.txt"} hope this helps')).toEqual({
      ok: true, value: { path: 'a.txt' }, repaired: 'code_fence',
    });
  });

  it('takes the first balanced object when several follow each other', () => {
    expect(parseArguments('{"a":"x}"}{"b":2}')).toEqual({ ok: true, value: { a: 'x}' }, repaired: 'first_object' });
  });

  it('closes truncated brackets', () => {
    expect(parseArguments('{"a":{"b":[1,2')).toEqual({ ok: true, value: { a: { b: [1, 2] } }, repaired: 'close_truncated' });
  });

  it('drops trailing commas', () => {
    expect(parseArguments('{"a":1,"b":[1,2,],}')).toEqual({ ok: true, value: { a: 1, b: [1, 2] }, repaired: 'close_truncated' });
  });

  it('never invents content inside a string that was cut off', () => {
    const r = parseArguments('{"path":"src/ap');
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.reason).toMatch(/cut off inside a string/);
  });

  it('decodes double-encoded arguments once', () => {
    expect(parseArguments(JSON.stringify(JSON.stringify({ a: 1 })))).toEqual({ ok: true, value: { a: 1 }, repaired: 'double_encoded' });
    // one level only: a triple-encoded value stays a (double-encoded) string, which zod then rejects
    const triple = JSON.stringify(JSON.stringify(JSON.stringify({ a: 1 })));
    expect(parseArguments(triple)).toEqual({ ok: true, value: JSON.stringify(JSON.stringify({ a: 1 })) });
  });

  it('refuses arguments over 256 KiB outright, even valid JSON', () => {
    const big = JSON.stringify({ s: 'x'.repeat(MAX_ARGUMENTS_BYTES) });
    const r = parseArguments(big);
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.reason).toMatch(/over the 262144-byte limit/);
  });

  it('parses valid JSON between 64 and 256 KiB but does not repair it', () => {
    const valid = JSON.stringify({ s: 'x'.repeat(MAX_REPAIR_BYTES + 10) });
    expect(parseArguments(valid).ok).toBe(true);
    const broken = `{"s":"${'x'.repeat(MAX_REPAIR_BYTES + 10)}", "t": [1,`;
    const r = parseArguments(broken);
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.reason).toMatch(/too large to repair/);
  });

  it('strips a fence with backticks inside a string value, up to the last closing fence', () => {
    expect(parseArguments('```json\n{"md":"use ``` here"}\n``` thanks')).toEqual({
      ok: true, value: { md: 'use ``` here' }, repaired: 'code_fence',
    });
  });

  it('strips a fence without a language tag or newline', () => {
    expect(parseArguments('```{"a":1}```')).toEqual({ ok: true, value: { a: 1 }, repaired: 'code_fence' });
  });

  // Guards a denial of service: a backtracking regex over the body once took 35 s on
  // '```' + 4000 spaces and blocked the event loop. The bound is generous on purpose.
  it('repairs or refuses 64 KiB of adversarial arguments in linear time', () => {
    const n = MAX_REPAIR_BYTES - 16;
    const started = Date.now();
    const refused = [
      '```' + ' '.repeat(n),
      '```json\n' + ' '.repeat(n),
      '```' + '\n'.repeat(n),
      '```' + 'a'.repeat(n),
      '```'.repeat(Math.floor(n / 3)),
      '{'.repeat(n),
      '['.repeat(n),
      '}'.repeat(n),
      '"'.repeat(n),
      '{"a":'.repeat(Math.floor(n / 5)),
    ];
    for (const raw of refused) expect(parseArguments(raw).ok, raw.slice(0, 12)).toBe(false);
    expect(parseArguments('{' + ' '.repeat(n))).toEqual({ ok: true, value: {}, repaired: 'close_truncated' });
    expect(parseArguments('```json\n{' + ' \n'.repeat(n / 2 - 8))).toEqual({ ok: true, value: {}, repaired: 'close_truncated' });
    expect(parseArguments('```json\n' + ' '.repeat(n - 20) + '{"a":1}\n```')).toEqual({ ok: true, value: { a: 1 }, repaired: 'code_fence' });
    const cut = parseArguments('{"a":"' + '\\'.repeat(n));
    expect(cut.ok === false && cut.reason).toMatch(/cut off inside a string/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reports garbage as not repairable', () => {
    expect(parseArguments('not json at all').ok).toBe(false);
  });
});
