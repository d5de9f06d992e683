/**
 * Provider error text made fit for a turn's error (src/model/provider-text.ts, clean-errors.ts):
 * secrets removed (also echoed in part), the size bounded, HTML pages summarized; and the secret
 * values the configuration holds (src/config.ts configSecrets).
 */
import { describe, expect, it } from 'vitest';
import { configSecrets, loadConfig } from '../../src/config.js';
import { withCleanErrors } from '../../src/model/clean-errors.js';
import { ModelError, type ModelPort, type ModelStreamEvent } from '../../src/model/port.js';
import { base64Cores, boundText, describeHtmlBody, providerErrorText, scrubSecrets, PROVIDER_TEXT_MAX_CHARS } from '../../src/model/provider-text.js';

const KEY = { name: 'OPENAI_API_KEY', value: 'sk-proj-AbCdEf0123456789wxyz' };

describe('scrubSecrets', () => {
  it('replaces every full value, naming its variable', () => {
    expect(scrubSecrets(`Incorrect API key provided: ${KEY.value}. See https://x`, [KEY])).toBe('Incorrect API key provided: [redacted:OPENAI_API_KEY]. See https://x');
    expect(scrubSecrets(`"${KEY.value}" and ${KEY.value}`, [KEY])).toBe('"[redacted:OPENAI_API_KEY]" and [redacted:OPENAI_API_KEY]');
  });

  it('replaces the masked and shortened echoes providers write (a run starting with the first 6 characters)', () => {
    expect(scrubSecrets('Incorrect API key provided: sk-pro****************wxyz.', [KEY])).toBe('Incorrect API key provided: [redacted:OPENAI_API_KEY].');
    expect(scrubSecrets('key sk-test-…-key is revoked', [{ name: 'OPENAI_API_KEY', value: 'sk-test-key' }])).toBe('key [redacted:OPENAI_API_KEY] is revoked');
    expect(scrubSecrets('{"key":"sk-proj-Ab***yz"}', [KEY])).toBe('{"key":"[redacted:OPENAI_API_KEY]"}');
  });

  it('replaces the longer of two overlapping values whole, and leaves values under 6 characters and other text alone', () => {
    const secrets = [{ name: 'A', value: 'abcdefgh' }, { name: 'B', value: 'abcdefgh-ijkl' }, { name: 'C', value: 'EMPTY' }];
    expect(scrubSecrets('x abcdefgh-ijkl y abcdefgh EMPTY', secrets)).toBe('x [redacted:B] y [redacted:A] EMPTY');
    expect(scrubSecrets('nothing secret here', [KEY])).toBe('nothing secret here');
  });
});

describe('scrubSecrets: echoes in another letter case or as hex', () => {
  const SECRET = { name: 'OPENAI_API_KEY', value: 'sk-SECRETkey/+=1234567890abcd' };

  it('replaces a value echoed upper- or lower-cased, and the hex of its bytes in either case', () => {
    expect(scrubSecrets('key SK-SECRETKEY/+=1234567890ABCD refused', [SECRET])).toBe('key [redacted:OPENAI_API_KEY] refused');
    expect(scrubSecrets('key sk-secretkey/+=1234567890abcd refused', [SECRET])).toBe('key [redacted:OPENAI_API_KEY] refused');
    const hex = Buffer.from(SECRET.value).toString('hex');
    expect(scrubSecrets(`token=${hex};`, [SECRET])).toBe('token=[redacted:OPENAI_API_KEY];');
    expect(scrubSecrets(`token=${hex.toUpperCase()}`, [SECRET])).toBe('token=[redacted:OPENAI_API_KEY]');
  });

  it('leaves values under 10 characters and other text alone; a character whose lower case is longer (U+0130) does not stop it', () => {
    expect(scrubSecrets('key ABCDEFGH', [{ name: 'X', value: 'abcdefgh' }])).toBe('key ABCDEFGH');
    expect(scrubSecrets('nothing of it here: SK-OTHER', [SECRET])).toBe('nothing of it here: SK-OTHER');
    expect(scrubSecrets('\u0130 SK-SECRETKEY/+=1234567890ABCD', [SECRET])).toBe('\u0130 [redacted:OPENAI_API_KEY]');
  });
});

describe('scrubSecrets: JSON-escaped echoes', () => {
  const KEY = { name: 'OPENAI_API_KEY', value: 'sk-proj-abc/def0123456789' };
  const escape = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

  it('replaces a value written with \\uXXXX escapes (either hex case) or \\/, in part or whole', () => {
    expect(scrubSecrets('{"key":"sk\\u002dproj\\u002Dabc\\/def0123456789"}', [KEY])).toBe('{"key":"[redacted:OPENAI_API_KEY]"}');
    expect(scrubSecrets(`key ${escape(KEY.value)}.`, [KEY])).toBe('key [redacted:OPENAI_API_KEY].');
    const pw = { name: 'DATABASE_URL', value: 'p\u00e4ss\u{1F511}word-123' };
    expect(scrubSecrets('auth p\\u00e4ss\\ud83d\\udd11word-123 failed', [pw])).toBe('auth [redacted:DATABASE_URL] failed');
  });

  it('replaces a masked echo whose first characters are escaped; other escapes are left alone', () => {
    expect(scrubSecrets('"sk\\u002dpro*********6789", "x"', [KEY])).toBe('"[redacted:OPENAI_API_KEY]", "x"');
    expect(scrubSecrets('line\\nsk\\u002dpr and \\u00e9 \\uZZZZ \\ud800', [KEY])).toBe('line\\nsk\\u002dpr and \\u00e9 \\uZZZZ \\ud800');
  });
});

describe('scrubSecrets: percent-encoded echoes', () => {
  const SLASHY = { name: 'OPENAI_API_KEY', value: 'sk-ab/cd+ef=gh/ij0123' };

  it('replaces a value whose /, + or = are written %2F, %2B, %3D, in either hex case, or fully encoded', () => {
    expect(scrubSecrets('GET /v1?key=sk-ab%2Fcd%2Bef%3Dgh%2Fij0123&x=1 refused', [SLASHY])).toBe('GET /v1?key=[redacted:OPENAI_API_KEY]&x=1 refused');
    expect(scrubSecrets('key sk-ab%2fcd%2bef%3dgh%2Fij0123.', [SLASHY])).toBe('key [redacted:OPENAI_API_KEY].');
    const everyByte = [...Buffer.from(SLASHY.value)].map((b) => `%${b.toString(16)}`).join('');
    expect(scrubSecrets(`(${everyByte})`, [SLASHY])).toBe('([redacted:OPENAI_API_KEY])');
  });

  it('reads %XX as bytes, so a non-ASCII character encoded as UTF-8 matches too; other percent text is left alone', () => {
    const pw = { name: 'DATABASE_URL', value: 'pässwörd-123' };
    expect(scrubSecrets('auth p%C3%A4ssw%c3%b6rd-123 failed', [pw])).toBe('auth [redacted:DATABASE_URL] failed');
    expect(scrubSecrets('50% of sk-ab and sk-a%2F and 100%', [SLASHY])).toBe('50% of sk-ab and sk-a%2F and 100%');
    expect(scrubSecrets('bad escape %ZZ %4', [SLASHY])).toBe('bad escape %ZZ %4');
  });

  it('scans a long percent-encoded text in linear time', () => {
    const text = `${'%2F'.repeat(100_000)}${'sk-ab%2Fcd'.repeat(20_000)}`;
    const started = performance.now();
    // One run of 20,000 echoes: the first one's run takes in the rest.
    expect(scrubSecrets(text, [SLASHY])).toBe(`${'%2F'.repeat(100_000)}[redacted:OPENAI_API_KEY]`);
    // About 0.2 s for both on a 2-core machine; quadratic would take minutes (bounds loose for load).
    expect(performance.now() - started).toBeLessThan(4000);
    const spaced = `${'%2F'.repeat(100_000)}${'sk-ab%2Fc '.repeat(20_000)}`;
    expect(scrubSecrets(spaced, [SLASHY])).toBe(`${'%2F'.repeat(100_000)}${'[redacted:OPENAI_API_KEY] '.repeat(20_000)}`);
    expect(performance.now() - started).toBeLessThan(8000);
  });

  it('replaces a masked or shortened echo whose first characters are percent-encoded, as it does one written plainly', () => {
    expect(scrubSecrets('proxy saw key=sk-ab%2Fcd****0123&x=1; done', [SLASHY])).toBe('proxy saw key=[redacted:OPENAI_API_KEY]; done');
    expect(scrubSecrets('"sk-ab%2fc…" refused.', [SLASHY])).toBe('"[redacted:OPENAI_API_KEY]" refused.');
    expect(scrubSecrets('sk-ab/cd**** and sk-ab%2Fcd****.', [SLASHY])).toBe('[redacted:OPENAI_API_KEY] and [redacted:OPENAI_API_KEY].');
  });

  it('keeps the longer of two overlapping values whole and names each echo by its own variable', () => {
    const secrets = [{ name: 'A', value: 'abc/def' }, { name: 'B', value: 'abc/def/ghi' }];
    expect(scrubSecrets('x abc%2Fdef%2Fghi y abc%2fdef z', secrets)).toBe('x [redacted:B] y [redacted:A] z');
  });
});

describe('scrubSecrets: base64 echoes', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const b64url = (s: string) => Buffer.from(s).toString('base64url');

  it('replaces a base64 or base64url run holding a secret, at every byte offset, whole', () => {
    expect(scrubSecrets(`Authorization: Bearer ${b64(KEY.value)} rejected`, [KEY])).toBe('Authorization: Bearer [redacted:OPENAI_API_KEY] rejected');
    for (const user of ['', 'u:', 'us:', 'use:', 'user:', 'ü:']) {
      expect(scrubSecrets(`Basic ${b64(user + KEY.value)}`, [KEY])).toBe('Basic [redacted:OPENAI_API_KEY]');
      expect(scrubSecrets(`token=${b64url(`${user}${KEY.value}?x=1`)}.`, [KEY])).toBe('token=[redacted:OPENAI_API_KEY].');
    }
  });

  it('looks only for secrets whose stable part of the encoding is 16+ characters, and leaves other base64 alone', () => {
    const short = { name: 'SHORT', value: 'sk-123456789' }; // 12 bytes: a core of 15 characters at some offsets
    expect(base64Cores(short.value)).toEqual([]);
    expect(scrubSecrets(`Basic ${b64(short.value)}`, [short])).toBe(`Basic ${b64(short.value)}`);
    expect(Math.min(...base64Cores('sk-1234567890').map((c) => c.length))).toBe(16);
    const other = b64('some other credential that is long');
    expect(scrubSecrets(`Basic ${other}`, [KEY])).toBe(`Basic ${other}`);
  });

  it('replaces an echo cut short: a run holding the encoding of the first 12 bytes of a secret, at every byte offset', () => {
    for (const user of ['', 'u:', 'us:', 'user:']) {
      const basic = `Basic ${b64(user + KEY.value)}`;
      expect(scrubSecrets(`proxy saw ${basic.slice(0, 40)}… and refused`, [KEY])).toBe('proxy saw Basic [redacted:OPENAI_API_KEY]… and refused');
      expect(scrubSecrets(`token=${b64url(user + KEY.value).slice(0, 24)}...`, [KEY])).toBe('token=[redacted:OPENAI_API_KEY]...');
    }
    // The encoding of fewer than 12 bytes of the secret is not enough (it could be any text's).
    const short = b64(KEY.value.slice(0, 11));
    expect(scrubSecrets(`Basic ${short}…`, [KEY])).toBe(`Basic ${short}…`);
  });

  it('reads JSON\'s \\/ and percent-encoded %2B, %2F, %3D inside an encoding as what they encode', () => {
    const secret = { name: 'S', value: '\u00fb\u00ff\u00fe-secret-with-slashes-in-base64' }; // ûÿþ encode to +/ characters
    const encoded = b64(`user:${secret.value}`);
    expect(encoded).toMatch(/[+/]/);
    expect(scrubSecrets(`Basic ${encoded.replace(/\//g, '\\/')} refused`, [secret])).toBe('Basic [redacted:S] refused');
    expect(scrubSecrets(`?auth=${encodeURIComponent(encoded)}&x=1`, [secret])).toBe('?auth=[redacted:S]&x=1');
  });

  it('joins base64 wrapped across lines (real or JSON-escaped line breaks), but not the prose of the next line', () => {
    const long = { name: 'S', value: `sk-${'0123456789abcdefghij'.repeat(4)}` };
    const encoded = b64(`user:${long.value}`);
    const wrap = (s: string, width: number, br: string) => s.match(new RegExp(`.{1,${width}}`, 'g'))!.join(br);
    for (const br of ['\n', '\r\n', '\\n', '\\r\\n']) {
      expect(scrubSecrets(`Authorization: Basic ${wrap(encoded, 20, br)}${br}next line`, [long])).toBe(`Authorization: Basic [redacted:S]${br}next line`);
      expect(scrubSecrets(`"${wrap(encoded, 76, br)}"`, [long])).toBe('"[redacted:S]"');
    }
    // The first line alone already holds the start of the secret: the run is cut at 'next'.
    expect(scrubSecrets(`Basic ${encoded}\nThe request was refused`, [long])).toBe('Basic [redacted:S]\nThe request was refused');
  });

  it('scans a long run of near-misses in linear time', () => {
    // Every position of the text starts the encoding of the secret's first 11 bytes; none holds its first 12 (a cut echo) or more.
    const secret = { name: 'S', value: `${'ABC'.repeat(3)}AB!${'ABC'.repeat(16)}` };
    const text = `Basic ${'QUJD'.repeat(100_000)} ${'QUJD '.repeat(50_000)} ${'QUJD\\/\\n'.repeat(30_000)} ${`${'QUJD'.repeat(4)}\n`.repeat(20_000)}`;
    const started = performance.now();
    const out = scrubSecrets(text, [secret]);
    // About 0.4 s on a 2-core machine; a scan that restarted at every position would take minutes.
    // The bound is loose so that a loaded machine (the suite's files run in parallel) still passes.
    expect(performance.now() - started).toBeLessThan(4000);
    expect(out === text).toBe(true);
    expect(scrubSecrets(`Basic ${b64(`user:${secret.value}`)}`, [secret])).toBe('Basic [redacted:S]');
  });
});

describe('boundText', () => {
  it('keeps the start and says how many characters were cut', () => {
    const long = 'E'.repeat(200_000);
    const out = boundText(long);
    expect(out).toBe(`${'E'.repeat(PROVIDER_TEXT_MAX_CHARS)}… [truncated ${200_000 - PROVIDER_TEXT_MAX_CHARS} characters]`);
    expect(boundText('short')).toBe('short');
  });

  it('never splits a character', () => {
    const out = boundText('😀'.repeat(3000), 4001);
    expect(out).toBe(`${'😀'.repeat(2000)}… [truncated 2000 characters]`);
  });
});

describe('describeHtmlBody / providerErrorText', () => {
  it('summarizes a page by size and title, else heading, else its first words', () => {
    expect(describeHtmlBody('<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>…</body></html>')).toBe('an HTML page of 87 bytes, titled "502 Bad Gateway"');
    const page = `<html><body><h1>500 Internal Server Error</h1>${'x'.repeat(5000)}</body></html>`;
    expect(describeHtmlBody(page)).toBe(`an HTML page of ${page.length} bytes: "500 Internal Server Error"`);
    expect(describeHtmlBody('<html><body>Not Found</body></html>')).toBe('an HTML page of 35 bytes: "Not Found"');
    expect(describeHtmlBody('Bad Gateway')).toBeUndefined();
    expect(describeHtmlBody('{"error":"<html>"}')).toBeUndefined();
  });

  it('reads a hostile page (thousands of unclosed <title>, <h1>, <script> and comments) in one scan: the summary, not a hang', () => {
    const page = `<html>${'<title>'.repeat(30_000)}${'<h1>'.repeat(30_000)}${'<script>'.repeat(20_000)}`;
    expect(describeHtmlBody(page)).toBe(`an HTML page of ${page.length} bytes`);
    expect(describeHtmlBody(`${'<!-- a -->'.repeat(30_000)}<x>`)).toBeUndefined();
    expect(describeHtmlBody(`<!-- c --> <!DOCTYPE html><html><title>502 Bad &amp; Gateway</title></html>`)).toBe('an HTML page of 75 bytes, titled "502 Bad & Gateway"');
  });

  it('knows a page without <html> by its first tag (after a byte order mark, white space or comments) or by its Content-Type', () => {
    const nginx = '\uFEFF\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>';
    expect(describeHtmlBody(nginx)).toBe(`an HTML page of ${Buffer.byteLength(nginx)} bytes: "502 Bad Gateway"`);
    expect(describeHtmlBody('<!-- proxy --><TITLE>Oops</TITLE><P>down')).toBe('an HTML page of 40 bytes, titled "Oops"');
    expect(describeHtmlBody('<p class="x">upstream gone</p>')).toBe('an HTML page of 30 bytes: "upstream gone"');
    expect(describeHtmlBody('Upstream <b>timed out</b>', 'text/html; charset=utf-8')).toBe('an HTML page of 25 bytes: "Upstream timed out"');
    expect(describeHtmlBody('<x>', 'application/XHTML+xml')).toBe('an HTML page of 3 bytes');
    expect(describeHtmlBody('Upstream <b>timed out</b>', 'text/plain')).toBeUndefined();
    expect(describeHtmlBody('<b>bold</b> claim')).toBeUndefined();
    expect(describeHtmlBody('<paragraph>')).toBeUndefined();
    expect(describeHtmlBody('<tool_call>{}</tool_call>')).toBeUndefined();
    const html = new Headers({ 'content-type': 'text/html' });
    expect(providerErrorText({ status: 502, message: '502 Bad <i>Gateway</i>', headers: html })).toBe('an HTML page of 18 bytes: "Bad Gateway"');
    // A JSON body's message is not the page the Content-Type names.
    expect(providerErrorText({ status: 400, message: '400 a <i>b</i>', error: { message: 'a <i>b</i>' }, headers: html })).toBe('a <i>b</i>');
  });

  it('drops the SDK\'s status prefix, keeps any text that is not HTML, and reads an answer without a body as empty', () => {
    expect(providerErrorText({ status: 404, message: '404 <html><body>Not Found</body></html>' })).toBe('an HTML page of 35 bytes: "Not Found"');
    expect(providerErrorText({ status: 502, message: '502 Bad Gateway' })).toBe('Bad Gateway');
    expect(providerErrorText({ status: 500, message: 'upstream exploded', error: { message: 'upstream exploded' } })).toBe('upstream exploded');
    expect(providerErrorText({ status: 400, message: '400 status code (no body)' })).toBe('');
    expect(providerErrorText({ status: 502, message: '502 \r\n' })).toBe('');
    expect(providerErrorText({ status: 400, message: '400 {"foo":1}', error: { foo: 1 } })).toBe('{"foo":1}');
    // Bodies in a server's own shape, as the SDK hands them over: FastAPI's detail, TGI's string error, vLLM's top-level message.
    expect(providerErrorText({ status: 404, message: '404 {"detail":"Not Found"}', error: { detail: 'Not Found' } })).toBe('Not Found');
    expect(providerErrorText({ status: 422, message: '422 "too long"', error: 'too long' })).toBe('too long');
    expect(providerErrorText({ status: 400, message: '400 too big', error: { object: 'error', message: 'too big', code: 400 } })).toBe('too big');
    expect(providerErrorText({ message: 'key revoked', error: { message: 'key revoked' } })).toBe('key revoked');
  });

  it('writes FastAPI\'s list of validation problems as location: message, the first 10 and a count of the rest', () => {
    const detail = Array.from({ length: 13 }, (_, i) => ({ loc: ['body', 'items', i, 'x'], msg: 'field required', type: 'missing', input: {} }));
    const text = providerErrorText({ status: 422, message: `422 ${JSON.stringify({ detail })}`, error: { detail } });
    expect(text).toBe(`${Array.from({ length: 10 }, (_, i) => `body.items.${i}.x: field required`).join('; ')}; and 3 more`);
    // A location-less entry is its message; entries without a message are left out; none with one: the body as it came.
    const odd = [{ msg: 'bad input' }, { loc: ['body'] }, 'text', null, { loc: ['query', { x: 1 }, 'n'], msg: 'M'.repeat(400) }];
    expect(providerErrorText({ status: 422, message: '422 …', error: { detail: odd } })).toBe(`bad input; query.n: ${'M'.repeat(299)}…`);
    expect(providerErrorText({ status: 422, message: '422 {"detail":[{"loc":["body"]}]}', error: { detail: [{ loc: ['body'] }] } })).toBe('{"detail":[{"loc":["body"]}]}');
  });
});

describe('withCleanErrors', () => {
  const secrets = async () => [KEY];
  const run = async (port: ModelPort) => {
    const events: ModelStreamEvent[] = [];
    try {
      for await (const e of withCleanErrors(port, secrets).stream({ model: 'm', input: [], tools: [], toolChoice: 'auto' }, new AbortController().signal)) events.push(e);
      return { events };
    } catch (err) {
      return { events, err: err as ModelError };
    }
  };

  it('cleans a thrown ModelError, keeping its code, status and responseStarted', async () => {
    const thrown = new ModelError('invalid_api_key', `Incorrect API key provided: ${KEY.value}${'!'.repeat(10_000)}`, 401);
    thrown.responseStarted = true;
    const { err } = await run({ stream: async function* () { throw thrown; } });
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ code: 'invalid_api_key', status: 401, responseStarted: true });
    expect(err!.message).toMatch(/^Incorrect API key provided: \[redacted:OPENAI_API_KEY\]!+… \[truncated \d+ characters\]$/);
  });

  it('scans only the start of a huge message, counting the rest in the marker as if it had all been scanned', async () => {
    const message = `Incorrect API key provided: ${KEY.value} ${'x%2F'.repeat(1_000_000)}`;
    const started = performance.now();
    const { err } = await run({ stream: async function* () { throw new ModelError('invalid_api_key', message, 401); } });
    expect(performance.now() - started).toBeLessThan(500); // about 10 ms; scanning all 4 million characters took about 900 ms
    expect(err!.message).toBe(boundText(message.replace(KEY.value, '[redacted:OPENAI_API_KEY]')));
    expect(err!.message).toMatch(/^Incorrect API key provided: \[redacted:OPENAI_API_KEY\] x%2Fx.*… \[truncated \d+ characters\]$/);
  });

  it('cleans error events and failed response.done events; other events pass unchanged', async () => {
    const text = { type: 'text.delta' as const, text: 'hi' };
    const { events } = await run({
      stream: async function* () {
        yield text;
        yield { type: 'error', code: 'auth', message: `key ${KEY.value} is revoked` };
        yield { type: 'response.done', status: 'failed', error: { code: 'server_error', message: `bad key ${KEY.value}` } };
      },
    });
    expect(events[0]).toBe(text);
    expect(events[1]).toEqual({ type: 'error', code: 'auth', message: 'key [redacted:OPENAI_API_KEY] is revoked' });
    expect(events[2]).toEqual({ type: 'response.done', status: 'failed', error: { code: 'server_error', message: 'bad key [redacted:OPENAI_API_KEY]' } });
  });
});

describe('configSecrets', () => {
  it('lists every secret value of the configuration, passwords in URLs included', () => {
    const config = loadConfig({
      OPENAI_API_KEY: 'sk-openai-key-123',
      OPENAI_BASE_URL: 'http://user:base%40pass@127.0.0.1:8000/v1',
      AUTH_TOKENS: 'token-aaaaaaaaaaaaaaaa,token-bbbbbbbbbbbbbbbb',
      METRICS_TOKEN: 'metrics-cccccccccccccc',
      STREAM_TOKEN_SECRET: 'stream-dddddddddddddd',
      DATABASE_URL: 'postgres://turns:db-secret-pw@127.0.0.1:5432/turns',
      WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      WEBHOOK_SECRET_PREVIOUS: 'whsec_Q29sZFNlY3JldE9mVGhlUm90YXRpb24xMjM0',
      WEB_SEARCH_PROVIDER: 'brave',
      WEB_SEARCH_API_KEY: 'brave-key-eeeeeeee',
    });
    expect(configSecrets(config)).toEqual([
      { name: 'OPENAI_API_KEY', value: 'sk-openai-key-123' },
      { name: 'WEB_SEARCH_API_KEY', value: 'brave-key-eeeeeeee' },
      { name: 'AUTH_TOKENS', value: 'token-aaaaaaaaaaaaaaaa' },
      { name: 'AUTH_TOKENS', value: 'token-bbbbbbbbbbbbbbbb' },
      { name: 'STREAM_TOKEN_SECRET', value: 'stream-dddddddddddddd' },
      { name: 'METRICS_TOKEN', value: 'metrics-cccccccccccccc' },
      { name: 'WEBHOOK_SECRET', value: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      { name: 'WEBHOOK_SECRET', value: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      { name: 'WEBHOOK_SECRET_PREVIOUS', value: 'whsec_Q29sZFNlY3JldE9mVGhlUm90YXRpb24xMjM0' },
      { name: 'WEBHOOK_SECRET_PREVIOUS', value: 'Q29sZFNlY3JldE9mVGhlUm90YXRpb24xMjM0' },
      { name: 'DATABASE_URL', value: 'db-secret-pw' },
      { name: 'OPENAI_BASE_URL', value: 'base%40pass' },
      { name: 'OPENAI_BASE_URL', value: 'base@pass' },
    ]);
  });
});
