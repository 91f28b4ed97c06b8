#!/usr/bin/env bash
# Makes HAProxy available for the scale-out test (three `serve --http` replicas behind a real
# load balancer) and prints, on stdout, the one line the test needs:
#
#   export PATCHBAY_HAPROXY='/usr/sbin/haproxy'
#
# so CI runs `eval "$(.ci/haproxy.sh)"`. Everything else goes to stderr. Installs Debian's
# `haproxy` package when it is missing (needs root and apt-get). When HAProxy cannot be
# installed, or cannot check a config, it prints nothing on stdout and exits non-zero; the test
# then skips with a printed reason. The test starts its own haproxy processes (foreground, on
# 127.0.0.1 only); this script starts nothing and leaves the distribution's service stopped.
set -euo pipefail

log() { echo "haproxy.sh: $*" >&2; }

find_bin() {
  if command -v haproxy >/dev/null 2>&1; then command -v haproxy; return 0; fi
  if [ -x /usr/sbin/haproxy ]; then echo /usr/sbin/haproxy; return 0; fi
  return 1
}

BIN="$(find_bin || true)"
if [ -z "$BIN" ]; then
  log "HAProxy is not installed; installing Debian's haproxy package"
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "cannot install (need root and apt-get)"
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || true
  # A policy-rc.d keeps the package's own service from starting (the test runs its own haproxy);
  # one the machine already has is left as it is.
  OWN_POLICY=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && OWN_POLICY=1
  fi
  apt-get install -y -qq haproxy >&2 || { [ -n "$OWN_POLICY" ] && rm -f /usr/sbin/policy-rc.d; log "apt-get install haproxy failed"; exit 1; }
  if [ -n "$OWN_POLICY" ]; then rm -f /usr/sbin/policy-rc.d; fi
  BIN="$(find_bin)" || { log "haproxy not found after installing"; exit 1; }
fi

# Prove the binary runs and accepts the config syntax the test writes (check only: nothing binds).
CFG="$(mktemp)"
trap 'rm -f "$CFG"' EXIT
cat >"$CFG" <<'CFGEOF'
global
  log stderr format raw local0 warning
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
frontend f
  bind 127.0.0.1:65500
  default_backend b
backend b
  balance roundrobin
  option httpchk
  http-check send meth GET uri /status ver HTTP/1.1 hdr Host 127.0.0.1 hdr Authorization "Bearer x"
  http-check expect status 200
  server r1 127.0.0.1:9 check
CFGEOF
"$BIN" -c -q -f "$CFG" >&2 || { log "$BIN cannot check a config"; exit 1; }
log "ready: $("$BIN" -v | head -n 1)"
echo "export PATCHBAY_HAPROXY='$BIN'"
