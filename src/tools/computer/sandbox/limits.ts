/**
 * Per-command resource limits, applied with the shell's `ulimit` (soft and hard, so the command
 * cannot raise them again) right before `exec bash -lc <command>`. Works the same inside
 * bubblewrap and in the unsandboxed mode.
 *
 * The limits are in place before anything the command controls can run: the wrapper shell is
 * `bash --posix` (which reads no startup file, not even $BASH_ENV) and calls the `ulimit` builtin
 * explicitly; the variables that change how a shell or the dynamic loader starts (BASH_ENV,
 * LD_PRELOAD, …) are refused in a call's `env` (command-env.ts). The login shell's profile files in
 * the home run after the limits, inside them.
 */

export interface CommandLimits {
  /** Max processes/threads of the user (RLIMIT_NPROC, `ulimit -u`). */
  maxProcesses: number;
  /** Max size of a file the command writes, in bytes (RLIMIT_FSIZE, `ulimit -f` in 1024-byte blocks). */
  maxFileBytes: number;
  /** Max open files (RLIMIT_NOFILE, `ulimit -n`). */
  maxOpenFiles: number;
  /**
   * Max data memory of each process in bytes (RLIMIT_DATA, `ulimit -d` in KiB; since Linux 4.7 it
   * counts heap and private writable mappings); 0 = no limit. RLIMIT_DATA rather than the
   * address-space limit (`ulimit -v`): runtimes such as Node.js reserve far more address space than
   * they use, so `ulimit -v 1048576` already breaks `node -e` allocating 800 MB, while RLIMIT_DATA
   * bounds what is really allocated. It is per process, not per command (no cgroups here).
   */
  maxDataBytes?: number;
}

export const DEFAULT_LIMITS: CommandLimits = {
  maxProcesses: 1024,
  maxFileBytes: 1024 * 1024 * 1024,
  maxOpenFiles: 4096,
  maxDataBytes: 2048 * 1024 * 1024,
};

/**
 * argv (after the sandbox prefix) that applies `limits` and runs `command` with `bash -lc`.
 * The command is passed as a positional argument, never spliced into the script.
 */
export function limitedShellArgv(command: string, limits: CommandLimits = DEFAULT_LIMITS): string[] {
  const blocks = Math.max(1, Math.floor(limits.maxFileBytes / 1024));
  // lim FLAG N: set soft and hard to N, or to the current hard limit when that is already lower
  // (raising a hard limit needs privileges the service may not have).
  const lim = 'lim() { h=$(builtin ulimit -H "$1"); if [ "$h" = unlimited ] || [ "$h" -gt "$2" ]; then builtin ulimit -S -H "$1" "$2"; else builtin ulimit -S "$1" "$h"; fi; }';
  const data = limits.maxDataBytes ? ` && lim -d ${Math.max(1, Math.floor(limits.maxDataBytes / 1024))}` : '';
  const script = [
    // Started in POSIX mode only so that no startup file runs; then normal units (-f in KiB).
    'set +o posix',
    lim,
    `lim -u ${limits.maxProcesses} && lim -f ${blocks} && lim -n ${limits.maxOpenFiles}${data} && builtin ulimit -S -H -c 0 && exec /bin/bash -lc "$1"`,
  ].join('\n');
  return ['/bin/bash', '--posix', '-c', script, 'command', command];
}
