/**
 * The seccomp filter of a sandboxed command: a classic-BPF program (what `bwrap --seccomp FD`
 * reads: an array of `struct sock_filter`, 8 bytes each, native byte order) that makes a short list
 * of system calls a command never needs fail with EPERM, and kills a process that uses a foreign
 * system-call ABI (i386 or x32 on x86-64, arm32 on aarch64), which would otherwise bypass the list.
 *
 * Denied: mounting and namespaces (mount, umount2, pivot_root, the new mount API, unshare, setns),
 * kernel code and state (init/finit/delete_module, kexec_load, kexec_file_load, reboot, swapon,
 * swapoff, acct, quotactl, bpf, perf_event_open, lookup_dcookie, vhangup, iopl, ioperm, uselib),
 * the kernel keyring (add_key, request_key, keyctl), userfaultfd, access to other processes
 * (ptrace, process_vm_readv, process_vm_writev) and file handles (name_to_handle_at,
 * open_by_handle_at). clone3 answers ENOSYS so that libc falls back to clone.
 *
 * Constants: `struct seccomp_data` layout and SECCOMP_RET_* from linux/seccomp.h, BPF opcodes from
 * linux/bpf_common.h and linux/filter.h, AUDIT_ARCH_* from linux/audit.h, system-call numbers from
 * arch/x86/entry/syscalls/syscall_64.tbl (asm/unistd_64.h) and include/uapi/asm-generic/unistd.h
 * (aarch64), all Linux UAPI headers.
 */

/** Machine architectures the filter knows (Node's `process.arch`). */
export type SeccompArch = 'x64' | 'arm64';

/** EPERM and ENOSYS (asm-generic/errno-base.h, errno.h). */
const EPERM = 1;
const ENOSYS = 38;

// BPF opcodes (linux/bpf_common.h).
const BPF_LD_W_ABS = 0x00 | 0x00 | 0x20;
const BPF_JMP_JEQ_K = 0x05 | 0x10 | 0x00;
const BPF_JMP_JGE_K = 0x05 | 0x30 | 0x00;
const BPF_RET_K = 0x06 | 0x00;

// Return values (linux/seccomp.h).
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;

// struct seccomp_data { int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]; }
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;

/** x32 system calls on x86-64 carry this bit in `nr` (asm/unistd.h __X32_SYSCALL_BIT). */
const X32_SYSCALL_BIT = 0x40000000;

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

/** Denied system calls: name → [x86-64 number, aarch64 number] (null: no such call there). */
const DENIED: Record<string, [number | null, number | null]> = {
  mount: [165, 40],
  umount2: [166, 39],
  pivot_root: [155, 41],
  open_tree: [428, 428],
  move_mount: [429, 429],
  fsopen: [430, 430],
  fsconfig: [431, 431],
  fsmount: [432, 432],
  fspick: [433, 433],
  mount_setattr: [442, 442],
  unshare: [272, 97],
  setns: [308, 268],
  init_module: [175, 105],
  finit_module: [313, 273],
  delete_module: [176, 106],
  kexec_load: [246, 104],
  kexec_file_load: [320, 294],
  reboot: [169, 142],
  swapon: [167, 224],
  swapoff: [168, 225],
  acct: [163, 89],
  quotactl: [179, 60],
  bpf: [321, 280],
  perf_event_open: [298, 241],
  lookup_dcookie: [212, 18],
  vhangup: [153, 58],
  iopl: [172, null],
  ioperm: [173, null],
  uselib: [134, null],
  add_key: [248, 217],
  request_key: [249, 218],
  keyctl: [250, 219],
  userfaultfd: [323, 282],
  ptrace: [101, 117],
  process_vm_readv: [310, 270],
  process_vm_writev: [311, 271],
  name_to_handle_at: [303, 264],
  open_by_handle_at: [304, 265],
};

/** clone3 gets ENOSYS (not EPERM) so that glibc and musl fall back to clone(2). */
const CLONE3 = 435;

/** Names of the system calls the filter refuses with EPERM on `arch`. */
export function deniedSyscalls(arch: SeccompArch): string[] {
  const i = arch === 'x64' ? 0 : 1;
  return Object.keys(DENIED).filter((n) => DENIED[n][i] !== null);
}

/** Whether {@link seccompProgram} supports the machine this process runs on. */
export function seccompSupported(arch: string = process.arch): arch is SeccompArch {
  return arch === 'x64' || arch === 'arm64';
}

/**
 * The compiled filter for `arch` (default: this machine), as bwrap's `--seccomp` expects it.
 * @throws Error for an architecture other than x64/arm64.
 */
export function seccompProgram(arch: string = process.arch): Buffer {
  if (!seccompSupported(arch)) throw new Error(`no seccomp filter for architecture ${arch}`);
  const nrs = Object.values(DENIED).map((v) => v[arch === 'x64' ? 0 : 1]).filter((n): n is number => n !== null);
  const prog: [number, number, number, number][] = [];
  // Foreign ABI → kill.
  prog.push([BPF_LD_W_ABS, 0, 0, OFFSET_ARCH]);
  prog.push([BPF_JMP_JEQ_K, 1, 0, AUDIT_ARCH[arch]]);
  prog.push([BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS]);
  prog.push([BPF_LD_W_ABS, 0, 0, OFFSET_NR]);
  if (arch === 'x64') {
    prog.push([BPF_JMP_JGE_K, 0, 1, X32_SYSCALL_BIT]);
    prog.push([BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS]);
  }
  prog.push([BPF_JMP_JEQ_K, 0, 1, CLONE3]);
  prog.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS]);
  // One comparison per denied call: equal → jump to the EPERM return after the last comparison.
  nrs.forEach((nr, i) => prog.push([BPF_JMP_JEQ_K, nrs.length - i, 0, nr]));
  prog.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  prog.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    // struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; } in the machine's byte order
    // (little-endian on both supported architectures).
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}
