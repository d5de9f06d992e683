/**
 * Close the file descriptors a command must not get, on the host, before bwrap (or the unsandboxed
 * shell) starts.
 *
 * A spawned child keeps every descriptor of the service that is not close-on-exec: Node opens its
 * own with O_CLOEXEC, but whatever launched the service may have left some open without it (a
 * shell's `exec 200<>file`, a supervisor's sockets), and libuv's spawn passes those on as they are.
 * bwrap passes its own descriptors on to the command too, and its processes inside the sandbox
 * (pid 1, the monitor) could keep them, readable through /proc/<pid>/fd; closing them in the
 * sandbox's shell would come too late. So the child the service spawns is a short bash prologue
 * ({@link closeInheritedFdsArgv}) that lists its own /proc/self/fd, closes every descriptor above
 * the ones the service passes on purpose (0–2, and bwrap's options and seccomp descriptors), then
 * execs the real program in the same process (same pid, process group and session, so killing the
 * group and `--die-with-parent` work as before).
 *
 * Fails closed: when /proc/self/fd cannot be listed, the prologue closes nothing and runs nothing;
 * it prints {@link CLOSE_FDS_FAILED} on stderr and exits {@link CLOSE_FDS_EXIT}.
 *
 * Nothing secret is added to a command line: the prologue's argv is the fixed script, the number
 * of descriptors to keep and the real argv (which already was a command line).
 */

/** The shell that runs the prologue (bash: `{var}>&-` closes a descriptor held in a variable). */
export const CLOSE_FDS_SHELL = '/bin/bash';

/** The prologue's `$0` (shows in its error messages). */
const NAME = 'close-inherited-fds';

/** What the prologue prints on stderr (after `close-inherited-fds: `) when it cannot list its descriptors. */
export const CLOSE_FDS_FAILED = 'cannot list /proc/self/fd to close inherited file descriptors; nothing was run';

/** Exit status of the prologue when it cannot list its descriptors (as a shell's "cannot execute"). */
export const CLOSE_FDS_EXIT = 126;

/**
 * `$1`: the highest descriptor to keep; then the argv to exec. The glob lists /proc/self/fd of
 * this very shell (no subshell); the directory descriptor it opened for that is listed too but
 * already closed when the loop runs (closing it again is harmless). Every entry must be a number,
 * or the listing is not what it should be and nothing runs.
 */
const SCRIPT = [
  'shopt -s nullglob',
  'fds=(/proc/self/fd/*)',
  `fail() { printf '%s: %s\\n' "$0" '${CLOSE_FDS_FAILED}' >&2; exit ${CLOSE_FDS_EXIT}; }`,
  '[ "${#fds[@]}" -gt 0 ] || fail',
  'for f in "${fds[@]}"; do',
  '  f=${f##*/}',
  '  case $f in "" | *[!0-9]*) fail ;; esac',
  '  if [ "$f" -gt "$1" ]; then exec {f}>&-; fi',
  'done',
  'shift',
  'exec "$@"',
].join('\n');

/**
 * argv that runs `argv` with only descriptors 0..`keepThrough` open.
 * @param keepThrough highest descriptor passed on purpose (2 for stdio only, 3 with bwrap's
 *   `--args` fd, 4 with its `--seccomp` fd too).
 * @param argv the program (absolute path) and its arguments.
 * @throws Error when `keepThrough` is not an integer ≥ 2 or `argv` is empty.
 */
export function closeInheritedFdsArgv(keepThrough: number, argv: string[]): string[] {
  if (!Number.isInteger(keepThrough) || keepThrough < 2) throw new Error(`closeInheritedFdsArgv: keepThrough must be an integer >= 2, got ${keepThrough}`);
  if (argv.length === 0) throw new Error('closeInheritedFdsArgv: argv is empty');
  return [CLOSE_FDS_SHELL, '-c', SCRIPT, NAME, String(keepThrough), ...argv];
}
