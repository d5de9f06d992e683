# shellcheck shell=bash
# Source this file (`. scripts/node24.sh`) to run the rest of the shell on Node.js 24.
#
# When `node --version` is not v24.x, installs the official Node.js binary from the npm package
# node-linux-<arch>@NODE24_VERSION (plain `npm install`, no other download; npm itself comes from
# Debian's package when missing, with apt-get as root or through sudo) into NODE24_DIR
# (default as root: /opt/turn-service/node-<version>, readable by the sandbox user; otherwise
# $XDG_CACHE_HOME or ~/.cache, under turn-service/node-<version>), reuses it when
# already there, and puts its bin/ first on PATH.
#
# Always exports npm_config_nodedir = the running Node's install prefix: a native module built
# from source here (no prebuilt download) must use that Node's headers, and Debian's npmrc sets
# nodedir=/usr (Node 20 headers), which would build a module that crashes under Node 24.
NODE24_VERSION=24.22.3

if ! node --version 2>/dev/null | grep -q '^v24\.'; then
  case "$(uname -m)" in
    x86_64) node24_arch=x64 ;;
    aarch64 | arm64) node24_arch=arm64 ;;
    *) echo "setup: no node-linux package for $(uname -m); install Node.js 24 yourself" >&2; return 1 2>/dev/null || exit 1 ;;
  esac
  # As root the sandbox runs as an unprivileged user that binds this node into commands (skills'
  # mcporter), so it must live where that user can read it: not under /root (mode 0700).
  if [ "$(id -u)" -eq 0 ]; then node24_default=/opt/turn-service/node-$NODE24_VERSION
  else node24_default="${XDG_CACHE_HOME:-$HOME/.cache}/turn-service/node-$NODE24_VERSION"; fi
  NODE24_DIR="${NODE24_DIR:-$node24_default}"
  node24_bin="$NODE24_DIR/node_modules/node-linux-$node24_arch/bin"
  if [ ! -x "$node24_bin/node" ]; then
    # npm fetches the package; a Debian machine without it gets Debian's npm (as root, or with sudo).
    if ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
      if [ "$(id -u)" -eq 0 ]; then node24_sudo=''; else node24_sudo='sudo'; fi
      echo "setup: installing npm (Debian's, only to fetch Node.js 24)" >&2
      DEBIAN_FRONTEND=noninteractive $node24_sudo apt-get update >&2 &&
        DEBIAN_FRONTEND=noninteractive $node24_sudo apt-get install -y --no-install-recommends npm >&2 || true
      unset node24_sudo
    fi
    if ! command -v npm >/dev/null 2>&1; then
      echo "setup: npm is needed to fetch Node.js 24 and could not be installed (Debian: apt-get install -y npm, as root)" >&2
      return 1 2>/dev/null || exit 1
    fi
    echo "setup: installing Node.js $NODE24_VERSION into $NODE24_DIR" >&2
    mkdir -p "$NODE24_DIR"
    npm install --prefix "$NODE24_DIR" --no-save --no-audit --no-fund --no-update-notifier --loglevel=error \
      "node-linux-$node24_arch@$NODE24_VERSION" >&2
  fi
  export PATH="$node24_bin:$PATH"
  unset node24_arch node24_bin node24_default
fi

npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"
export npm_config_nodedir
