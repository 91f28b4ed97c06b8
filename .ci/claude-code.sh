#!/usr/bin/env bash
# Installs the real Claude Code client from the npm registry OUTSIDE the project's dependencies and
# prints, on stdout, the line the real-client test (tests/adapters/real-client.test.ts) reads:
#
#   export PATCHBAY_CLAUDE_BIN=/opt/patchbay-ci/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude
#
# so CI runs `eval "$(.ci/claude-code.sh)"`. Everything else goes to stderr; when the package cannot
# be installed it prints nothing and exits non-zero, and the test skips saying why.
#
# The version is pinned to the one claude-code is certified for (2.1.197: the last release whose
# package declares Node 20; the native binary itself does not need Node). The package's postinstall
# only copies the native binary into bin/claude.exe, so it is skipped (--ignore-scripts) and the
# platform package's binary is used directly. The client is only ever run offline, against the
# project's Messages API stub on 127.0.0.1 (src/adapter/certify/messages-stub.ts).
#
# Environment: PATCHBAY_CLAUDE_VERSION (default 2.1.197), PATCHBAY_CLAUDE_PREFIX (default
# /opt/patchbay-ci/claude-code). Idempotent: an installed matching version is reused.
set -euo pipefail

VERSION="${PATCHBAY_CLAUDE_VERSION:-2.1.197}"
PREFIX="${PATCHBAY_CLAUDE_PREFIX:-/opt/patchbay-ci/claude-code}"
log() { echo "claude-code.sh: $*" >&2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64 ;;
  Linux-aarch64) PLATFORM=linux-arm64 ;;
  Darwin-arm64) PLATFORM=darwin-arm64 ;;
  Darwin-x86_64) PLATFORM=darwin-x64 ;;
  *) log "no Claude Code build for $(uname -s)-$(uname -m)"; exit 1 ;;
esac
# musl (Alpine) has its own package.
if [ "$PLATFORM" = linux-x64 ] && ldd --version 2>&1 | grep -qi musl; then PLATFORM=linux-x64-musl; fi

BIN="$PREFIX/node_modules/@anthropic-ai/claude-code-$PLATFORM/claude"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "^$VERSION "; then
  log "reusing $BIN ($VERSION)"
else
  mkdir -p "$PREFIX"
  log "installing @anthropic-ai/claude-code@$VERSION into $PREFIX"
  if ! npm install --prefix "$PREFIX" --save-exact --ignore-scripts --no-audit --no-fund "@anthropic-ai/claude-code@$VERSION" >&2; then
    log "npm install failed"
    exit 1
  fi
fi
if ! [ -x "$BIN" ] || ! "$BIN" --version >&2; then
  log "$BIN does not run"
  exit 1
fi
echo "export PATCHBAY_CLAUDE_BIN=$BIN"
