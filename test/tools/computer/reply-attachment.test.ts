/**
 * reply_attachment through a real turn (real sandbox for the symbolic links, real server with
 * AUTH_TOKENS): only files whose real path is under ~/outbox are accepted; the attachment is a
 * snapshot taken at the call; the `presentation` event carries its URL; the download works with
 * the bearer token and with the turn's stream token (as a browser link would use it), and not
 * with another turn's. Attachment names are plain file names: a name with a bidi control, a
 * control character or a folder is refused with an error naming it, so is a name with no visible
 * character (only a Hangul filler, combining marks, a soft hyphen), and a download's
 * Content-Disposition never carries one (also for a name stored before that rule).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../../support/scripted-responses-server.js';
import { api, useScriptedService } from '../../e2e/support/service.js';
import { readSse } from '../../e2e/support/sse-client.js';
import { validateComponent, validateResponse } from '../../e2e/support/spec.js';

const AUTH = { authorization: 'Bearer test-token-of-reply-attachment' };
const harness = useScriptedService({ env: { AUTH_TOKENS: 'test-token-of-reply-attachment' } });

describe('reply_attachment', () => {
  it('attaches a snapshot of an outbox file, refuses links out of the outbox, and serves the download', async () => {
    harness.model.push(
      { output: [functionCall('write_file', { path: 'outbox/report.txt', content: 'version 1\n' })] },
      { output: [functionCall('reply_attachment', { path: 'outbox/report.txt', name: 'Report ü "final".txt' }, { callId: 'att' })] },
      { output: [functionCall('write_file', { path: 'outbox/report.txt', content: 'version 2, edited after attaching\n' })] },
      { output: [functionCall('write_file', { path: 'notes.txt', content: 'private notes\n' })] },
      { output: [functionCall('command', { command: 'ln -s ../notes.txt outbox/notes-link.txt && ln -s /etc/passwd outbox/passwd && ln -s .. outbox/up' })] },
      {
        output: [
          functionCall('reply_attachment', { path: 'outbox/notes-link.txt' }, { callId: 'link' }),
          functionCall('reply_attachment', { path: 'outbox/passwd' }, { callId: 'passwd' }),
          functionCall('reply_attachment', { path: 'outbox/up/notes.txt' }, { callId: 'up' }),
          functionCall('reply_attachment', { path: 'notes.txt' }, { callId: 'outside' }),
          functionCall('reply_attachment', { path: 'outbox/../notes.txt' }, { callId: 'dotdot' }),
          functionCall('reply_attachment', { path: 'outbox/missing.txt' }, { callId: 'missing' }),
        ],
      },
      { output: [message('here is your report')] },
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', headers: AUTH, body: { input: 'make a report', tools: ['computer'] }, timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    const turnId = r.events[0].json.turn_id;
    expect(r.events[0].json.tools).toContain('reply_attachment');
    const done = Object.fromEntries(r.events.filter((e) => e.event === 'tool.completed').map((e) => [e.json.call_id, e.json]));
    expect(done.att.is_error).toBe(false);
    for (const id of ['link', 'passwd', 'up', 'outside', 'dotdot']) {
      expect(done[id].output, id).toBe('Error: tool reply_attachment failed: reply_attachment only accepts files under ~/outbox');
    }
    expect(done.missing.output).toContain('does not exist');

    const presentations = r.events.filter((e) => e.event === 'presentation').map((e) => e.json);
    expect(presentations).toHaveLength(1);
    const ev = presentations[0];
    expect(ev.call_id).toBe('att');
    expect(ev.event).toMatchObject({ type: 'attachment', name: 'Report ü "final".txt', mime_type: 'text/plain; charset=utf-8', size: 10 });
    expect(ev.event.attachment_id).toMatch(/^att_[0-9a-f]{32}$/);
    expect(validateComponent('AttachmentPresentation', ev.event)).toEqual([]);
    expect(ev.event.url).toBe(`/v1/turns/${turnId}/attachments/${ev.event.attachment_id}`);

    // Download with the bearer token: the snapshot, not the edited file.
    const res = await fetch(harness.svc.url + ev.event.url, { headers: AUTH });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('version 1\n');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Report _ _final_.txt"; filename*=UTF-8''Report%20%C3%BC%20%22final%22.txt`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');

    // Without Authorization: refused; with the turn's stream token (from links.events): served.
    expect((await fetch(harness.svc.url + ev.event.url)).status).toBe(401);
    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${turnId}`, undefined, AUTH);
    const token = new URL(turn.body.links.events, harness.svc.url).searchParams.get('stream_token');
    expect(token).toBeTruthy();
    const viaToken = await fetch(`${harness.svc.url}${ev.event.url}?stream_token=${encodeURIComponent(token!)}`);
    expect(viaToken.status).toBe(200);
    expect(await viaToken.text()).toBe('version 1\n');

    // Another turn's token does not open it; unknown attachments are 404.
    harness.model.push({ output: [message('other')] });
    const other = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'x' }, AUTH);
    const otherToken = new URL(other.body.links.events, harness.svc.url).searchParams.get('stream_token');
    expect((await fetch(`${harness.svc.url}${ev.event.url}?stream_token=${encodeURIComponent(otherToken!)}`)).status).toBe(401);
    const missing = await api(harness.svc.url, 'GET', `/v1/turns/${turnId}/attachments/att_${'0'.repeat(32)}`, undefined, AUTH);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('attachment_not_found');
    expect(validateResponse('/v1/turns/{id}/attachments/{attachment_id}', 'get', 404, missing.body)).toEqual([]);
  }, 90_000);

  it('refuses attachment names with control characters, bidi controls or folders, and never serves one in Content-Disposition', async () => {
    const spoof = 'ü\u202egnp.exe'; // shows as "üexe.png"
    const ownBad = 'outbox/x\u202etxt.exe';
    const ownBlank = 'outbox/\u2800';
    harness.model.push(
      { output: [functionCall('write_file', { path: 'outbox/image.bin', content: 'MZ\n' })] },
      { output: [functionCall('write_file', { path: ownBad, content: 'MZ\n' })] },
      { output: [functionCall('write_file', { path: ownBlank, content: 'MZ\n' })] },
      {
        output: [
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: spoof }, { callId: 'bidi' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: 'a\u0007b\nc.txt' }, { callId: 'control' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: 'in\u200Bvoice.pdf' }, { callId: 'invisible' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: 'report\u2028.pdf' }, { callId: 'separator' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: '👩\u200D💻 notes.txt' }, { callId: 'zwj' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: '../../evil.txt' }, { callId: 'folders' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: 'C:\\temp\\evil.txt' }, { callId: 'backslash' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: '..' }, { callId: 'dotdot' }),
          functionCall('reply_attachment', { path: ownBad }, { callId: 'own' }),
          functionCall('reply_attachment', { path: ownBad, name: 'x.exe' }, { callId: 'renamed' }),
          // Names with no visible character: a Hangul filler, combining marks alone, a deprecated
          // joiner alone (U+200D), a blank Braille pattern with a space, a file whose own name is a
          // Hangul filler. A soft hyphen is an invisible character, refused as such.
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: '\u3000\u2800' }, { callId: 'filler' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: '\u0301\u0301' }, { callId: 'marks' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: '\u200D' }, { callId: 'operator' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: 'in\u00ADvoice.pdf' }, { callId: 'shy' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: '\u2800 ' }, { callId: 'braille' }),
          functionCall('reply_attachment', { path: ownBlank }, { callId: 'ownBlank' }),
          functionCall('reply_attachment', { path: 'outbox/image.bin', name: 'می\u200Cخواهم.txt' }, { callId: 'persian' }),
        ],
      },
      { output: [message('done')] },
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', headers: AUTH, body: { input: 'attach it', tools: ['computer'] }, timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    const turnId = r.events[0].json.turn_id;
    const done = Object.fromEntries(r.events.filter((e) => e.event === 'tool.completed').map((e) => [e.json.call_id, e.json]));
    for (const id of ['bidi', 'control', 'invisible', 'separator', 'folders', 'backslash', 'dotdot', 'own', 'filler', 'marks', 'operator', 'shy', 'braille', 'ownBlank']) {
      expect(done[id].is_error, id).toBe(true);
      expect(done[id].output, id).toMatch(/^Error: /);
    }
    expect(done.bidi.output).toContain('Error: invalid arguments for tool reply_attachment:\n- name: must not contain U+202E (a bidirectional control), found at character 2: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the name without them, e.g. "ügnp.exe"');
    expect(done.control.output).toContain('must not contain U+0007 (a control character), found at character 2: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the name without them, e.g. "abc.txt"');
    expect(done.invisible.output).toContain('must not contain U+200B (an invisible character), found at character 3: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the name without them, e.g. "invoice.pdf"');
    expect(done.separator.output).toContain('must not contain U+2028 (a line or paragraph separator), found at character 7: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the name without them, e.g. "report.pdf"');
    expect(done.zwj.is_error).toBe(false);
    expect(done.folders.output).toContain('- name: must be a file name without folders (no / or \\): send e.g. "evil.txt"');
    expect(done.backslash.output).toContain('send e.g. "evil.txt"');
    expect(done.dotdot.output).toContain('- name: must be a file name, not "." or ".."');
    expect(done.own.output).toBe(
      'Error: tool reply_attachment failed: the file\'s own name "x\\u202Etxt.exe", the attachment\'s default name, must not contain U+202E (a bidirectional control), found at character 2: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the name without them, e.g. "xtxt.exe" as the name parameter (or rename the file)',
    );
    expect(done.renamed.is_error).toBe(false);
    const blank = (found: string) => `- name: must have a visible character, not only whitespace or invisible characters (found ${found}): send a name people can read, e.g. "report.pdf"`;
    expect(done.filler.output).toContain(blank('U+2800'));
    expect(done.marks.output).toContain(blank('U+0301'));
    expect(done.operator.output).toContain(blank('U+200D'));
    expect(done.shy.output).toContain('must not contain U+00AD (an invisible character), found at character 3: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the name without them, e.g. "invoice.pdf"');
    expect(done.braille.output).toContain(blank('U+2800'));
    expect(done.ownBlank.output).toBe(
      'Error: tool reply_attachment failed: the file\'s own name "\u2800", the attachment\'s default name, must have a visible character, not only whitespace or invisible characters (found U+2800): send a name people can read, e.g. "report.pdf" as the name parameter (or rename the file)',
    );
    const presentations = r.events.filter((e) => e.event === 'presentation').map((e) => e.json.event);
    expect(presentations.map((p) => p.name)).toEqual(['👩\u200D💻 notes.txt', 'x.exe', 'می\u200Cخواهم.txt']);

    // An attachment stored under such a name before the rule is served without it: the file
    // name is reduced to its last segment, control and bidi characters dropped, in both forms.
    const a = presentations[1];
    const meta = path.join(harness.svc.dataDir, 'attachments', turnId, `${a.attachment_id}.json`);
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, 'utf8')), name: `../..\\dir/${spoof}\u0000` }));
    const res = await fetch(harness.svc.url + a.url, { headers: AUTH });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('MZ\n');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="_gnp.exe"; filename*=UTF-8''%C3%BCgnp.exe`);
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, 'utf8')), name: '../\u202e' }));
    const bare = await fetch(harness.svc.url + a.url, { headers: AUTH });
    expect(bare.headers.get('content-disposition')).toBe(`attachment; filename="attachment"; filename*=UTF-8''attachment`);
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, 'utf8')), name: '\u2800\u0301' }));
    const blankName = await fetch(harness.svc.url + a.url, { headers: AUTH });
    expect(blankName.headers.get('content-disposition')).toBe(`attachment; filename="attachment"; filename*=UTF-8''attachment`);
  }, 90_000);
});
