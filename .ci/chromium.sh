#!/usr/bin/env bash
# Makes Debian's Chromium available for the status page's browser test and prints, on stdout,
# the one line it reads:
#
#   export PATCHBAY_CHROMIUM='/usr/bin/chromium'
#
# so CI runs `eval "$(.ci/chromium.sh)"`. Installs the `chromium` package when it is missing
# (needs root and apt-get); no browser is ever downloaded by npm (playwright-core drives this one).
# When Chromium cannot be had it prints nothing on stdout and exits non-zero; the test then skips
# with a printed reason.
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }

find_bin() {
  for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null 2>&1; then command -v "$b"; return 0; fi
  done
  return 1
}

BIN="$(find_bin || true)"
if [ -z "$BIN" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "Chromium is not installed and cannot be (need root and apt-get)"
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1 || true
  BIN="$(find_bin || true)"
fi
if [ -z "$BIN" ] || ! "$BIN" --version >/dev/null 2>&1; then
  log "chromium is missing or does not run"
  exit 1
fi
echo "export PATCHBAY_CHROMIUM='$BIN'"
