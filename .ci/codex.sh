#!/usr/bin/env bash
# Installs the real Codex CLI from the npm registry OUTSIDE the project's dependencies and prints,
# on stdout, the line the real-client test (tests/adapters/real-codex.test.ts) reads:
#
#   export PATCHBAY_CODEX_BIN=/opt/patchbay-ci/codex/node_modules/@openai/codex-linux-x64/vendor/<triple>/bin/codex
#
# so CI runs `eval "$(.ci/codex.sh)"`. Everything else goes to stderr; when the package cannot be
# installed it prints nothing and exits non-zero, and the test skips saying why.
#
# @openai/codex is a launcher whose native binary comes in an optional platform package
# (@openai/codex-linux-x64, ~400 MB installed); the binary is used directly. The client is only
# ever run offline, against the project's Responses API stub on 127.0.0.1
# (src/adapter/certify/responses-stub.ts).
#
# Environment: PATCHBAY_CODEX_VERSION (default 0.171.0, the newest certified), PATCHBAY_CODEX_PREFIX
# (default /opt/patchbay-ci/codex). Idempotent: an installed matching version is reused.
set -euo pipefail

VERSION="${PATCHBAY_CODEX_VERSION:-0.171.0}"
PREFIX="${PATCHBAY_CODEX_PREFIX:-/opt/patchbay-ci/codex}"
log() { echo "codex.sh: $*" >&2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64; TRIPLE=x86_64-unknown-linux-musl ;;
  Linux-aarch64) PLATFORM=linux-arm64; TRIPLE=aarch64-unknown-linux-musl ;;
  Darwin-arm64) PLATFORM=darwin-arm64; TRIPLE=aarch64-apple-darwin ;;
  Darwin-x86_64) PLATFORM=darwin-x64; TRIPLE=x86_64-apple-darwin ;;
  *) log "no Codex build for $(uname -s)-$(uname -m)"; exit 1 ;;
esac

BIN="$PREFIX/node_modules/@openai/codex-$PLATFORM/vendor/$TRIPLE/bin/codex"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q " $VERSION\$"; then
  log "reusing $BIN ($VERSION)"
else
  mkdir -p "$PREFIX"
  log "installing @openai/codex@$VERSION into $PREFIX"
  if ! npm install --prefix "$PREFIX" --save-exact --no-audit --no-fund "@openai/codex@$VERSION" >&2; then
    log "npm install failed"
    exit 1
  fi
fi
if ! [ -x "$BIN" ] || ! "$BIN" --version >&2; then
  log "$BIN does not run"
  exit 1
fi
echo "export PATCHBAY_CODEX_BIN=$BIN"
