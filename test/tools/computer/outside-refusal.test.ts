/**
 * A path that leaves the agent home tells nothing about the host: whether it is typed (`../x`,
 * `/abs`) or goes through a symbolic link to something outside that exists, is missing, is a
 * folder, through a chain of links or a loop, every file tool answers with the same refusal,
 * word for word once the typed name is taken out, and never names a resolved host path. Links
 * that stay inside the home still work (relative, absolute, `..` in the link text); a broken or
 * looping link inside the home gets its own message, which reveals nothing outside. `command`
 * refuses an outside workdir in its own words. Real files and real symbolic links throughout.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useComputerHome } from './support.js';

const h = useComputerHome();

/** Host folder next to the home (outside it) holding what the links point at. */
let outside: string;

beforeAll(async () => {
  await mkdir(h.home, { recursive: true });
  outside = path.join(h.dataDir, 'host');
  await mkdir(path.join(outside, 'dir', 'sub'), { recursive: true });
  await writeFile(path.join(outside, 'secret.txt'), 'HOST SECRET\n');
  await writeFile(path.join(outside, 'dir', 'sub', 'f.txt'), 'HOST SECRET\n');
});

const link = (target: string, name: string) => symlink(target, path.join(h.home, name));

/** The output with the typed path replaced, so refusals of different paths can be compared. */
const shape = (output: string, typed: string) => output.split(typed).join('<path>');

/** Calls of every file tool on `p` (a tool's own wording around the refusal stays the same per tool). */
const fileCalls = (p: string): [string, Record<string, unknown>][] => [
  ['read_file', { path: p }],
  ['write_file', { path: p, content: 'x' }],
  ['edit_file', { path: p, old_string: 'HOST', new_string: 'PWNED' }],
  ['ls', { path: p }],
  ['find', { pattern: '*', path: p }],
  ['grep', { pattern: 'SECRET', path: p }],
  ['apply_patch', { patch: `*** Begin Patch\n*** Update File: ${p}\n@@\n-HOST SECRET\n+PWNED\n*** End Patch` }],
];

/** Run every file tool on each path; return per tool the refusal shapes, checking no host path shows. */
async function refusals(paths: string[]): Promise<Map<string, Set<string>>> {
  const byTool = new Map<string, Set<string>>();
  for (const p of paths) {
    for (const [tool, args] of fileCalls(p)) {
      const r = await call(h.tools, tool, args);
      expect(r.isError, `${tool} ${p}: ${r.output}`).toBe(true);
      // Apart from the typed path: neither the home's host path nor anything the links resolve to.
      const s = shape(r.output, p);
      expect(s, `${tool} ${p}`).not.toContain(h.dataDir);
      expect(s, `${tool} ${p}`).not.toMatch(/\/etc|\/root|\/nonexistent|host|secret/);
      const set = byTool.get(tool) ?? new Set<string>();
      set.add(s);
      byTool.set(tool, set);
    }
  }
  return byTool;
}

/** Each tool answered every path with one text (typed path aside): the file tools' outside refusal. */
function expectOneShapePerTool(byTool: Map<string, Set<string>>): void {
  for (const [tool, shapes] of byTool) {
    expect([...shapes], tool).toHaveLength(1);
    expect([...shapes][0], tool).toMatch(/^Error: .*<path> leads outside the agent's home \(directly or through a symbolic link\); file tools only work inside the home — use a path inside it, relative to the home \(e\.g\. notes\/plan\.md\)/);
  }
}

describe('one refusal for every way out of the home', () => {
  it('a link to an existing outside file reads exactly like one to a missing outside file, and like ../ and absolute paths', async () => {
    await link(path.join(outside, 'secret.txt'), 'to-existing');
    await link(path.join(outside, 'no-such-file.txt'), 'to-missing');
    await link('/etc/passwd', 'to-etc-passwd');
    await link('/nonexistent-root-dir/x', 'to-nonexistent');
    const byTool = await refusals(['to-existing', 'to-missing', 'to-etc-passwd', 'to-nonexistent', '../../../host/secret.txt', '../missing.txt', path.join(outside, 'secret.txt'), '/nonexistent/x']);
    expectOneShapePerTool(byTool);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('HOST SECRET\n');
    expect(existsSync(path.join(outside, 'no-such-file.txt'))).toBe(false);
  });

  it('the exact text names only what was typed', async () => {
    const r = await call(h.tools, 'read_file', { path: 'to-existing' });
    expect(r.output).toBe(
      "Error: tool read_file failed: to-existing leads outside the agent's home (directly or through a symbolic link); file tools only work inside the home — use a path inside it, relative to the home (e.g. notes/plan.md)",
    );
  });

  it('paths below a folder link: existing and missing folders, files and file-as-folder outside all read the same', async () => {
    await link(path.join(outside, 'dir'), 'out-dir');
    await link(path.join(outside, 'gone-dir'), 'out-gone');
    await link(path.join(outside, 'secret.txt'), 'out-file');
    const byTool = await refusals([
      'out-dir', 'out-dir/sub', 'out-dir/sub/f.txt', 'out-dir/sub/missing.txt', 'out-dir/missing/deeper.txt',
      'out-gone', 'out-gone/sub', 'out-gone/sub/f.txt',
      'out-file/inside.txt',
    ]);
    expectOneShapePerTool(byTool);
    expect(existsSync(path.join(outside, 'gone-dir'))).toBe(false);
  });

  it('relative link targets and `..` in link text that leave the home, also to leave and come back in', async () => {
    const home = await realpath(h.home);
    await mkdir(path.join(h.home, 'rel'), { recursive: true });
    await writeFile(path.join(h.home, 'rel', 'mine.txt'), 'mine\n');
    // From home/rel: ../../../host is <dataDir>/host.
    await link('../../../../host/secret.txt', 'rel/up-existing');
    await link('../../../../host/absent.txt', 'rel/up-missing');
    await link('mine.txt/../../../../../host/secret.txt', 'rel/through-file');
    await link(`../../${path.basename(path.dirname(home))}/${path.basename(home)}/rel/mine.txt`, 'rel/out-and-back');
    await link(`${path.dirname(home)}/../${path.basename(path.dirname(home))}/${path.basename(home)}/rel/mine.txt`, 'rel/abs-out-and-back');
    const byTool = await refusals(['rel/up-existing', 'rel/up-missing', 'rel/out-and-back', 'rel/abs-out-and-back']);
    expectOneShapePerTool(byTool);
    // A link going through a file is broken whatever follows it: nothing outside is looked at.
    expect((await call(h.tools, 'read_file', { path: 'rel/through-file' })).output).toMatch(/goes through a broken symbolic link \(~\/rel\/through-file points to something that does not exist\)/);
  });

  it('chains of links: link → link → outside, existing or missing, and links spliced mid-path', async () => {
    await link(path.join(outside, 'secret.txt'), 'chain-a3');
    await link('chain-a3', 'chain-a2');
    await link('chain-a2', 'chain-a1');
    await link(path.join(outside, 'absent.txt'), 'chain-b3');
    await link('chain-b3', 'chain-b2');
    await link('chain-b2', 'chain-b1');
    await mkdir(path.join(h.home, 'hop'), { recursive: true });
    await link('../out-dir', 'hop/next');
    await link('hop/next/sub', 'chain-c');
    await link('../out-gone', 'hop/next-gone');
    await link('hop/next-gone/sub', 'chain-d');
    const byTool = await refusals(['chain-a1', 'chain-b1', 'chain-c/f.txt', 'chain-d/f.txt', 'chain-c', 'chain-d']);
    expectOneShapePerTool(byTool);
  });

  it('loops that pass outside the home, and a loop entirely outside, read like any other way out', async () => {
    // home/loop-in → <outside>/loop-out → home/loop-in
    await link(path.join(outside, 'loop-out'), 'loop-in');
    await symlink(path.join(h.home, 'loop-in'), path.join(outside, 'loop-out'));
    // home/to-outer-loop → <outside>/o1 → <outside>/o2 → <outside>/o1
    await symlink(path.join(outside, 'o2'), path.join(outside, 'o1'));
    await symlink(path.join(outside, 'o1'), path.join(outside, 'o2'));
    await link(path.join(outside, 'o1'), 'to-outer-loop');
    const byTool = await refusals(['loop-in', 'loop-in/x', 'to-outer-loop', 'to-outer-loop/x', 'to-existing']);
    expectOneShapePerTool(byTool);
  });
});

describe('links inside the home', () => {
  it('are followed: relative, absolute (by the home path), and `..` in the link text climbing from where the link led', async () => {
    const home = await realpath(h.home);
    await mkdir(path.join(h.home, 'in/a/b'), { recursive: true });
    await writeFile(path.join(h.home, 'in/a/f.txt'), 'in a\n');
    await writeFile(path.join(h.home, 'in/top.txt'), 'top\n');
    await link('a/b', 'in/deep');
    // in/deep/.. is in/a (the kernel climbs from the target), not in/.
    await link('deep/..', 'in/up');
    await link(path.join(home, 'in/a/f.txt'), 'in/abs');
    await link('./a/b/../f.txt', 'in/dots');
    expect((await call(h.tools, 'read_file', { path: 'in/up/f.txt' })).output).toContain('in a');
    expect((await call(h.tools, 'read_file', { path: 'in/abs' })).output).toContain('in a');
    expect((await call(h.tools, 'read_file', { path: 'in/dots' })).output).toContain('in a');
    const w = await call(h.tools, 'write_file', { path: 'in/up/new.txt', content: 'new\n' });
    expect(w.isError).toBe(false);
    expect(await readFile(path.join(h.home, 'in/a/new.txt'), 'utf8')).toBe('new\n');
    // A missing path below a working link is just missing (written on demand).
    expect((await call(h.tools, 'read_file', { path: 'in/deep/nothing.txt' })).output).toMatch(/^not found: in\/deep\/nothing.txt/);
  });

  it('a broken link whose target would be inside is refused as broken, naming the link in the home only', async () => {
    await mkdir(path.join(h.home, 'bk'), { recursive: true });
    await link('not-there.txt', 'bk/dangling');
    await link('dangling', 'bk/to-dangling');
    for (const [p, named] of [['bk/dangling', 'bk/dangling'], ['bk/to-dangling', 'bk/dangling'], ['bk/dangling/x.txt', 'bk/dangling']] as const) {
      const r = await call(h.tools, 'write_file', { path: p, content: 'x' });
      expect(r.output).toBe(`Error: tool write_file failed: ${p} goes through a broken symbolic link (~/${named} points to something that does not exist); fix or remove the link, or use another path`);
    }
    expect(existsSync(path.join(h.home, 'bk/not-there.txt'))).toBe(false);
  });

  it('a loop inside the home says so, without host paths', async () => {
    await link('loop-b', 'loop-a');
    await link('loop-a', 'loop-b');
    await link('self', 'self');
    for (const p of ['loop-a', 'self/x']) {
      const r = await call(h.tools, 'read_file', { path: p });
      expect(r.output).toMatch(new RegExp(`^Error: tool read_file failed: ${p} goes through more than 40 symbolic links \\(probably a loop; ~/(loop-a|loop-b|self) is one of them\\); fix or remove the links, or use another path$`));
      expect(r.output).not.toContain(h.dataDir);
    }
  });
});

describe('command workdir', () => {
  it('is refused outside the home in its own words, the same for existing and missing targets', async () => {
    const shapes = new Set<string>();
    for (const workdir of ['../..', '/etc', 'out-dir', 'out-gone', 'out-dir/sub', 'chain-c']) {
      const r = await call(h.tools, 'command', { command: 'pwd', workdir });
      expect(r.isError).toBe(true);
      expect(r.output).not.toContain('file tools');
      expect(r.output).not.toContain(h.dataDir);
      shapes.add(shape(r.output, workdir));
    }
    expect([...shapes]).toEqual([
      "Error: tool command failed: workdir <path> leads outside the agent's home (directly or through a symbolic link); a command starts in a folder of the home — give a workdir inside it, relative to the home (e.g. src), or leave workdir out to start in the home itself (the command can still cd elsewhere, e.g. /tmp)",
    ]);
  });
});
