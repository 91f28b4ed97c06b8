#!/usr/bin/env bash
# Runs the official MCP conformance server suite twice inside the caller's network namespace
# (the test starts this under `unshare -n`: the suite's servers listen on every interface):
#   1. against @modelcontextprotocol/server-everything alone (Streamable HTTP),
#   2. against `patchbay serve --http` fronting the same server (stdio) through mcp-remote.
# Usage: run.sh ROOT WORKDIR   (needs PATCHBAY_NODE22, PATCHBAY_MCP_CONFORMANCE)
set -u
ROOT="$1"; WORK="$2"
ip link set lo up
EVERYTHING="$ROOT/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
wait_for() { for _ in $(seq 300); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "timed out waiting for $2 in $1" >&2; cat "$1" >&2; return 1; }

PORT=3001 node "$EVERYTHING" streamableHttp >"$WORK/everything.log" 2>&1 &
EV=$!
wait_for "$WORK/everything.log" "listening" && \
  "$PATCHBAY_NODE22" "$PATCHBAY_MCP_CONFORMANCE" server --url http://localhost:3001/mcp -o "$WORK/alone" >"$WORK/alone.txt" 2>&1
kill $EV; wait $EV 2>/dev/null

cat >"$WORK/connectors.json" <<JSON
{ "plugins": [], "mcpConnectors": { "everything": { "plugin": "mcp-remote", "config": { "command": "node", "args": ["$EVERYTHING", "stdio"] } } } }
JSON
export PATCHBAY_TOKEN=conformance-token
node "$ROOT/bin/patchbay.mjs" serve --http --port 3002 --config "$WORK/connectors.json" >"$WORK/gateway.log" 2>&1 &
GW=$!
node "$ROOT/tests/gateway/conformance/auth-proxy.mjs" 3003 3002 >"$WORK/proxy.log" 2>&1 &
PX=$!
wait_for "$WORK/gateway.log" "Streamable HTTP at" && wait_for "$WORK/proxy.log" "auth proxy" && \
  "$PATCHBAY_NODE22" "$PATCHBAY_MCP_CONFORMANCE" server --url http://localhost:3003/mcp -o "$WORK/gateway" >"$WORK/gateway.txt" 2>&1
kill $PX $GW; wait $GW 2>/dev/null
exit 0
