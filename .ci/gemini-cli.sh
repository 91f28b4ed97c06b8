#!/usr/bin/env bash
# Installs the real Gemini CLI from the npm registry OUTSIDE the project's dependencies and prints,
# on stdout, the line the real-client test (tests/adapters/real-gemini.test.ts) reads:
#
#   export PATCHBAY_GEMINI_BIN=/opt/patchbay-ci/gemini-cli/node_modules/.bin/gemini
#
# so CI runs `eval "$(.ci/gemini-cli.sh)"`. Everything else goes to stderr; when the package cannot
# be installed it prints nothing and exits non-zero, and the test skips saying why.
#
# @google/gemini-cli is plain JavaScript (one bundle, ~100 MB with its dependencies) run by the
# `node` on PATH. The client is only ever run offline, against the project's generateContent stub
# on 127.0.0.1 (src/adapter/certify/generate-content-stub.ts).
#
# Environment: PATCHBAY_GEMINI_VERSION (default 0.61.0, the certified one), PATCHBAY_GEMINI_PREFIX
# (default /opt/patchbay-ci/gemini-cli). Idempotent: an installed matching version is reused.
set -euo pipefail

VERSION="${PATCHBAY_GEMINI_VERSION:-0.61.0}"
PREFIX="${PATCHBAY_GEMINI_PREFIX:-/opt/patchbay-ci/gemini-cli}"
log() { echo "gemini-cli.sh: $*" >&2; }

BIN="$PREFIX/node_modules/.bin/gemini"
if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "$VERSION" ]; then
  log "reusing $BIN ($VERSION)"
else
  mkdir -p "$PREFIX"
  log "installing @google/gemini-cli@$VERSION into $PREFIX"
  if ! npm install --prefix "$PREFIX" --save-exact --no-audit --no-fund "@google/gemini-cli@$VERSION" >&2; then
    log "npm install failed"
    exit 1
  fi
fi
if ! [ -x "$BIN" ] || ! "$BIN" --version >&2; then
  log "$BIN does not run"
  exit 1
fi
echo "export PATCHBAY_GEMINI_BIN=$BIN"
