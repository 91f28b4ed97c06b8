#!/usr/bin/env bash
# Makes Debian's Prometheus (and its promtool) available for the metrics tests and prints, on
# stdout, the lines they read:
#
#   export PATCHBAY_PROMETHEUS_BIN='/usr/bin/prometheus'
#   export PATCHBAY_PROMTOOL='/usr/bin/promtool'
#
# so CI runs `eval "$(.ci/prometheus.sh)"`. Installs the `prometheus` package when it is missing
# (needs root and apt-get). Starts nothing: each test runs its own prometheus on 127.0.0.1 with a
# generated config and a temporary storage folder, and stops it. When Prometheus cannot be had it
# prints nothing on stdout and exits non-zero; the tests then skip with a printed reason.
set -euo pipefail

log() { echo "prometheus.sh: $*" >&2; }

if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "Prometheus is not installed and cannot be (need root and apt-get)"
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true
  # A policy-rc.d keeps the package's own service from starting; one the machine has is left as it is.
  OWN_POLICY=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && OWN_POLICY=1
  fi
  apt-get install -y -qq --no-install-recommends prometheus >/dev/null 2>&1 || true
  if [ -n "$OWN_POLICY" ]; then rm -f /usr/sbin/policy-rc.d; fi
fi

PROM="$(command -v prometheus || true)"
TOOL="$(command -v promtool || true)"
if [ -z "$PROM" ] || [ -z "$TOOL" ] || ! "$PROM" --version >/dev/null 2>&1; then
  log "prometheus or promtool is missing after installing"
  exit 1
fi
echo "export PATCHBAY_PROMETHEUS_BIN='$PROM'"
echo "export PATCHBAY_PROMTOOL='$TOOL'"
