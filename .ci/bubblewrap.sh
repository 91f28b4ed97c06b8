#!/usr/bin/env bash
# Installs Debian's bubblewrap, which "isolation": "sandbox" runs each child under (namespaces,
# mounts, no network), and prints `export PATCHBAY_BWRAP=...` when a trial sandbox works on this
# machine; prints nothing otherwise (the sandbox tests then skip with a printed reason).
set -uo pipefail
if ! command -v bwrap >/dev/null 2>&1; then
  { apt-get install -y bubblewrap || { apt-get update && apt-get install -y bubblewrap; }; } >&2
fi
BWRAP="$(command -v bwrap || true)"
[ -n "$BWRAP" ] || exit 0
if "$BWRAP" --unshare-all --die-with-parent --ro-bind / / true >&2; then
  echo "export PATCHBAY_BWRAP=$BWRAP"
else
  echo "bubblewrap is installed but cannot create namespaces here; sandbox tests will skip" >&2
fi
