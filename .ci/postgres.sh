#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for the postgres-memory tests and prints, on stdout, the one
# line the tests need:
#
#   export PATCHBAY_TEST_PG_URL='postgres://patchbay:...@127.0.0.1:<port>/patchbay_test'
#
# so CI runs `eval "$(.ci/postgres.sh)"`. Everything else goes to stderr. When PostgreSQL cannot
# be installed or started it prints nothing on stdout and exits non-zero; the tests then skip
# with a printed reason.
#
#   .ci/postgres.sh          install if missing (Debian's packages), start, print the export line
#   .ci/postgres.sh stop     stop the server this script started
#
# Environment: PATCHBAY_PG_PORT (default 54329, away from a system cluster's 5432),
# PATCHBAY_PG_DIR (default ${TMPDIR:-/tmp}/patchbay-pg). The cluster listens on 127.0.0.1 only,
# with password (scram-sha-256) auth over TCP. Idempotent: a running cluster is reused.
set -euo pipefail

PORT="${PATCHBAY_PG_PORT:-54329}"
BASE="${PATCHBAY_PG_DIR:-${TMPDIR:-/tmp}/patchbay-pg}"
DATA="$BASE/data"
SOCK="$BASE/sock"
DB=patchbay_test
USER_NAME=patchbay
PASSWORD=patchbay-ci-password

log() { echo "postgres.sh: $*" >&2; }

find_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v pg_ctl >/dev/null 2>&1; then dirname "$(command -v pg_ctl)"; return 0; fi
  return 1
}

# initdb and postgres refuse to run as root: run them as the postgres user when we are root.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

BIN="$(find_bin || true)"

if [ "${1:-}" = stop ]; then
  if [ -n "$BIN" ] && [ -f "$DATA/postmaster.pid" ]; then as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2; fi
  exit 0
fi

if [ -z "$BIN" ]; then
  log "PostgreSQL is not installed; installing Debian's postgresql package"
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "cannot install (need root and apt-get)"
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || true
  apt-get install -y -qq postgresql >&2
  BIN="$(find_bin)" || { log "pg_ctl not found after installing"; exit 1; }
fi
log "using $BIN"

mkdir -p "$BASE" "$SOCK"
if [ "$(id -u)" = 0 ]; then chown postgres: "$BASE" "$SOCK"; fi

if [ ! -f "$DATA/PG_VERSION" ]; then
  log "initialising a cluster in $DATA"
  PWFILE="$(mktemp)"
  printf '%s\n' "$PASSWORD" >"$PWFILE"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$PWFILE"; fi
  as_pg "$BIN/initdb" -D "$DATA" -U postgres --pwfile="$PWFILE" --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >&2
  rm -f "$PWFILE"
fi

if ! as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  log "starting on 127.0.0.1:$PORT"
  as_pg "$BIN/pg_ctl" -D "$DATA" -w -t 60 -l "$BASE/server.log" \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $SOCK -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >&2 \
    || { log "start failed; server log:"; tail -n 30 "$BASE/server.log" >&2 || true; exit 1; }
fi

psql_admin() { as_pg "$BIN/psql" -h "$SOCK" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }

if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$USER_NAME'")" != 1 ]; then
  psql_admin -c "CREATE ROLE $USER_NAME LOGIN PASSWORD '$PASSWORD'" >&2
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
  psql_admin -c "CREATE DATABASE $DB OWNER $USER_NAME" >&2
fi

URL="postgres://$USER_NAME:$PASSWORD@127.0.0.1:$PORT/$DB"
# Prove the URL works over TCP with the password before handing it out.
PGPASSWORD="$PASSWORD" "$BIN/psql" "$URL" -qAt -c "SELECT 1" >/dev/null \
  || { log "the server is up but $USER_NAME cannot connect over TCP"; exit 1; }
log "ready: database $DB on 127.0.0.1:$PORT"
echo "export PATCHBAY_TEST_PG_URL='$URL'"
