/**
 * The sandbox's seccomp filter: system calls a command never needs fail with EPERM even where the
 * kernel would allow them to an unprivileged process (ptrace(PTRACE_TRACEME), add_key), while
 * ordinary ones keep working. Real commands in the real sandbox, called through the dispatcher.
 */
import { describe, expect, it } from 'vitest';
import { deniedSyscalls, seccompProgram } from '../../../src/tools/computer/sandbox/seccomp.js';
import { call, useComputerHome } from './support.js';

const h = useComputerHome();

/** x86-64 / aarch64 numbers of the calls tried below (Linux UAPI unistd headers). */
const NR = process.arch === 'arm64' ? { ptrace: 117, add_key: 217, getppid: 173 } : { ptrace: 101, add_key: 248, getppid: 110 };

describe('seccomp filter', () => {
  it('is a whole number of 8-byte BPF instructions covering mount, ptrace, bpf, keyctl and kexec', () => {
    const prog = seccompProgram();
    expect(prog.length % 8).toBe(0);
    expect(prog.length / 8).toBeLessThan(255);
    expect(deniedSyscalls(process.arch === 'arm64' ? 'arm64' : 'x64')).toEqual(expect.arrayContaining(['mount', 'ptrace', 'bpf', 'keyctl', 'kexec_load', 'userfaultfd', 'perf_event_open', 'unshare']));
  });

  it('makes ptrace and add_key fail with EPERM inside a command while getppid still works', async () => {
    const perl = [
      `my $r = syscall(${NR.ptrace}, 0, 0, 0, 0); print "ptrace=", ($r == -1 ? $!{EPERM} ? "EPERM" : "err:$!" : "ok"), "\\n";`,
      `my ($t, $d, $p) = ("user", "k", "v"); $r = syscall(${NR.add_key}, $t, $d, $p, 1, -2); print "add_key=", ($r == -1 ? $!{EPERM} ? "EPERM" : "err:$!" : "ok"), "\\n";`,
      `print "getppid=", (syscall(${NR.getppid}) > 0 ? "ok" : "err"), "\\n";`,
    ].join(' ');
    const r = await call(h.tools, 'command', { command: `perl -e '${perl}'` });
    expect(r.output).toContain('ptrace=EPERM\nadd_key=EPERM\ngetppid=ok\n');
  });

  it('leaves no way to a new user namespace', async () => {
    const r = await call(h.tools, 'command', { command: 'unshare -U true && echo MADE-ONE || echo refused' });
    expect(r.output).toContain('refused');
    expect(r.output).not.toContain('MADE-ONE');
  });
});
