#!/usr/bin/env bash
# Installs the NEWEST Claude Code on the npm registry (besides the certified one .ci/claude-code.sh
# pins) outside the project and prints, on stdout, the line the gateway's real-client test reads:
#
#   export PATCHBAY_CLAUDE_LATEST_BIN=/opt/patchbay-ci/claude-code-latest/node_modules/@anthropic-ai/claude-code-linux-x64/claude
#
# Newer releases change how MCP tools reach the model (ToolSearch deferral, -p permissions); the
# gateway's recipe in docs/gateway.md is checked against both. Prints nothing and exits non-zero
# when it cannot be installed (the test then skips, saying why). Only ever run offline against
# the project's Messages API stub.
set -euo pipefail
cd "$(dirname "$0")"
VERSION="$(npm view @anthropic-ai/claude-code version 2>/dev/null || true)"
if [ -z "$VERSION" ]; then echo "claude-code-latest.sh: cannot read the newest version from the registry" >&2; exit 1; fi
LINE="$(PATCHBAY_CLAUDE_VERSION="$VERSION" PATCHBAY_CLAUDE_PREFIX="${PATCHBAY_CLAUDE_LATEST_PREFIX:-/opt/patchbay-ci/claude-code-latest}" ./claude-code.sh)"
echo "${LINE/PATCHBAY_CLAUDE_BIN=/PATCHBAY_CLAUDE_LATEST_BIN=}"
