/**
 * File tools stay in the agent home: `../`, absolute paths and symlinks out of the home are
 * refused; two agents never see each other's files (file tools and commands).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, computerTools, turnContext, useComputerHome } from './support.js';

const h = useComputerHome({ agentId: 'alice' });

describe('paths outside the home', () => {
  it('creates the home on first use at DATA_DIR/agents/<agent_id>/home, not when the tools are assembled', async () => {
    expect(h.home).toBe(path.join(h.dataDir, 'agents', 'alice', 'home'));
    expect(existsSync(h.home)).toBe(false);
    const r = await call(h.tools, 'ls', {});
    expect(r.output).toBe('home: 0 entries (empty folder)');
    expect(existsSync(h.home)).toBe(true);
  });

  it('refuses ../ and absolute paths for every file tool', async () => {
    await writeFile(path.join(h.dataDir, 'secret.txt'), 'service secret');
    const cases: [string, Record<string, unknown>][] = [
      ['read_file', { path: '../../../secret.txt' }],
      ['read_file', { path: '/etc/passwd' }],
      ['read_file', { path: path.join(h.dataDir, 'secret.txt') }],
      ['write_file', { path: '../escape.txt', content: 'x' }],
      ['write_file', { path: '/tmp/escape.txt', content: 'x' }],
      ['edit_file', { path: '../../../secret.txt', old_string: 'service', new_string: 'x' }],
      ['ls', { path: '..' }],
      ['find', { pattern: '*', path: '/etc' }],
      ['grep', { pattern: 'root', path: '/etc' }],
      ['apply_patch', { patch: '*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch' }],
    ];
    for (const [name, args] of cases) {
      const r = await call(h.tools, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(r.output).toMatch(/^Error: .*outside the agent's home/);
    }
    expect(await readFile(path.join(h.dataDir, 'secret.txt'), 'utf8')).toBe('service secret');
    expect(existsSync(path.join(h.dataDir, 'agents', 'alice', 'escape.txt'))).toBe(false);
    expect(existsSync('/tmp/escape.txt')).toBe(false);
  });

  it('accepts an absolute path that is inside the home', async () => {
    const w = await call(h.tools, 'write_file', { path: path.join(h.home, 'abs.txt'), content: 'inside' });
    expect(w.isError).toBe(false);
    expect(await readFile(path.join(h.home, 'abs.txt'), 'utf8')).toBe('inside');
  });

  it('refuses a symlink to /etc, for reading, listing and writing through it', async () => {
    await symlink('/etc', path.join(h.home, 'etc-link'));
    const read = await call(h.tools, 'read_file', { path: 'etc-link/passwd' });
    expect(read.output).toMatch(/^Error: .*etc-link\/passwd leads outside the agent's home/);
    expect(read.output).not.toContain('/etc/passwd');
    const ls = await call(h.tools, 'ls', { path: 'etc-link' });
    expect(ls.output).toMatch(/outside the agent's home/);
    const write = await call(h.tools, 'write_file', { path: 'etc-link/new-file', content: 'x' });
    expect(write.output).toMatch(/outside the agent's home/);
    expect(existsSync('/etc/new-file')).toBe(false);
    const grep = await call(h.tools, 'grep', { pattern: 'root', path: 'etc-link' });
    expect(grep.output).toMatch(/outside the agent's home/);
  });

  it('does not follow symlinks out of the home when grep searches a folder', async () => {
    await mkdir(path.join(h.home, 'searchme'), { recursive: true });
    await symlink('/etc/passwd', path.join(h.home, 'searchme/passwd-link'));
    await writeFile(path.join(h.home, 'searchme/own.txt'), 'root of the project\n');
    const r = await call(h.tools, 'grep', { pattern: 'root', path: 'searchme' });
    expect(r.output).toBe('searchme/own.txt:1:root of the project');
    const all = await call(h.tools, 'grep', { pattern: 'root:x:0' });
    expect(all.output).toMatch(/^no matches/);
  });

  it('refuses a symlink to a file outside, even one a command created inside the sandbox', async () => {
    // Inside the sandbox the data folder is invisible, but the link text still points there.
    const target = path.join(h.dataDir, 'secret.txt');
    const mk = await call(h.tools, 'command', { command: `ln -s ${JSON.stringify(target)} sneaky.txt && echo linked` });
    expect(mk.output).toContain('linked');
    const read = await call(h.tools, 'read_file', { path: 'sneaky.txt' });
    expect(read.output).toMatch(/outside the agent's home/);
    const edit = await call(h.tools, 'edit_file', { path: 'sneaky.txt', old_string: 'service', new_string: 'pwned' });
    expect(edit.output).toMatch(/outside the agent's home/);
    expect(await readFile(target, 'utf8')).toBe('service secret');
  });

  it('refuses writing through a dangling symlink that points outside', async () => {
    await symlink(path.join(h.dataDir, 'not-yet-there'), path.join(h.home, 'dangling'));
    const r = await call(h.tools, 'write_file', { path: 'dangling/x.txt', content: 'x' });
    expect(r.isError).toBe(true);
    // Like a link to an existing outside path: a broken one must not tell that the target is missing.
    expect(r.output).toMatch(/^Error: .*dangling\/x.txt leads outside the agent's home/);
    expect(existsSync(path.join(h.dataDir, 'not-yet-there'))).toBe(false);
  });

  it('follows a symlink that stays inside the home', async () => {
    await mkdir(path.join(h.home, 'real-dir'), { recursive: true });
    await writeFile(path.join(h.home, 'real-dir/f.txt'), 'via link');
    await symlink('real-dir', path.join(h.home, 'inner-link'));
    const r = await call(h.tools, 'read_file', { path: 'inner-link/f.txt' });
    expect(r.output).toContain('via link');
  });
});

describe('two agents', () => {
  it('never see each other\'s files, with file tools or commands', async () => {
    const bob = turnContext(h.dataDir, { agentId: 'bob' });
    const { tools: bobTools } = await computerTools(bob);
    await call(h.tools, 'write_file', { path: 'alice-only.txt', content: 'for alice' });
    await call(bobTools, 'write_file', { path: 'bob-only.txt', content: 'for bob' });

    expect((await call(bobTools, 'read_file', { path: 'alice-only.txt' })).output).toMatch(/^not found/);
    expect((await call(bobTools, 'read_file', { path: '../../alice/home/alice-only.txt' })).output).toMatch(/outside the agent's home/);
    expect((await call(bobTools, 'ls', {})).output).not.toContain('alice-only.txt');

    const aliceHome = h.home;
    const fromBob = await call(bobTools, 'command', { command: `ls ${JSON.stringify(aliceHome)} 2>&1; cat ${JSON.stringify(path.join(aliceHome, 'alice-only.txt'))} 2>&1; ls` });
    expect(fromBob.output).not.toContain('for alice');
    expect(fromBob.output).toContain('No such file or directory');
    expect(fromBob.output).toContain('bob-only.txt');
    const fromAlice = await call(h.tools, 'command', { command: 'ls' });
    expect(fromAlice.output).toContain('alice-only.txt');
    expect(fromAlice.output).not.toContain('bob-only.txt');
  });
});
