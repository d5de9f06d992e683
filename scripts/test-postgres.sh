#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests (CI and local), in a temp dir on a free loopback port.
#
#   eval "$(scripts/test-postgres.sh start)"   # prints `export TEST_DATABASE_URL=… TEST_POSTGRES_DIR=…`
#   npm test                                   # Postgres tests use TEST_DATABASE_URL
#   scripts/test-postgres.sh stop              # stops the cluster in $TEST_POSTGRES_DIR and deletes it
#   scripts/test-postgres.sh pause [dir]       # stops the server, keeps the cluster (tests of a database restart)
#   scripts/test-postgres.sh resume [dir]      # starts it again on the same port
#
# Uses the newest Debian server under /usr/lib/postgresql/<version>/bin (or PG_BIN if set). initdb
# refuses to run as root, so as root the cluster runs as the `postgres` user (Debian's package creates
# it) or else `nobody`. Trust authentication on 127.0.0.1 only: a test cluster, never a real one.
# fsync is off: the data is thrown away.
set -euo pipefail

pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -z "$dir" ] || [ ! -x "$dir/initdb" ]; then
    echo "test-postgres: no PostgreSQL server found under /usr/lib/postgresql/*/bin (apt-get install postgresql, or set PG_BIN)" >&2
    exit 1
  fi
  echo "$dir"
}

# Run a command as the cluster's owner (not root).
as_owner() {
  if [ "$(id -u)" -ne 0 ]; then "$@"; return; fi
  local user=postgres
  getent passwd postgres >/dev/null 2>&1 || user=nobody
  runuser -u "$user" -- "$@"
}

owner() {
  if [ "$(id -u)" -ne 0 ]; then id -un; elif getent passwd postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi
}

free_port() {
  # Ask the kernel for a free loopback port (bind to port 0), then release it for postgres.
  if command -v node >/dev/null 2>&1; then
    node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
  else
    python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1]);s.close()"
  fi
}

# Start the server of the cluster in $2 on port $3 (bin dir $1).
server_start() {
  as_owner "$1/pg_ctl" -D "$2/data" -l "$2/server.log" -w -t 30 start \
    -o "-c listen_addresses=127.0.0.1 -p $3 -k $2 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    >/dev/null
}

start() {
  local bin dir port user
  bin="$(pg_bin)"
  dir="$(mktemp -d "${TMPDIR:-/tmp}/turn-service-pg.XXXXXX")"
  user="$(owner)"
  chown "$user" "$dir" 2>/dev/null || true
  chmod 700 "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    if server_start "$bin" "$dir" "$port"; then
      echo "$port" >"$dir/port"
      echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres TEST_POSTGRES_DIR=$dir"
      echo "test-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir (stop: scripts/test-postgres.sh stop)" >&2
      return
    fi
    echo "test-postgres: start on port $port failed (attempt $attempt)" >&2
  done
  cat "$dir/server.log" >&2
  exit 1
}

stop() {
  local dir="${1:-${TEST_POSTGRES_DIR:-}}"
  if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
    echo "test-postgres: nothing to stop (pass the dir or set TEST_POSTGRES_DIR)" >&2
    return 0
  fi
  as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

pause() {
  local dir="${1:-${TEST_POSTGRES_DIR:-}}"
  [ -n "$dir" ] && [ -d "$dir/data" ] || { echo "test-postgres: no cluster to pause (pass the dir or set TEST_POSTGRES_DIR)" >&2; exit 1; }
  as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
}

resume() {
  local dir="${1:-${TEST_POSTGRES_DIR:-}}"
  [ -n "$dir" ] && [ -f "$dir/port" ] || { echo "test-postgres: no paused cluster (pass the dir or set TEST_POSTGRES_DIR)" >&2; exit 1; }
  server_start "$(pg_bin)" "$dir" "$(cat "$dir/port")" || { tail -n 20 "$dir/server.log" >&2; exit 1; }
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  pause) pause "${2:-}" ;;
  resume) resume "${2:-}" ;;
  *) echo "usage: $0 start | stop [dir] | pause [dir] | resume [dir]" >&2; exit 2 ;;
esac
