#!/usr/bin/env bash
# Installs everything the whole suite needs into .venv (dev extras, a Phoenix server, Chromium, Prometheus) and runs
# lint, type checks and every test, slow end-to-end ones included.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev,e2e]"

# The HTML report is checked in a real headless browser.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "warning: could not install chromium; browser tests will fail in CI" >&2
  fi
fi

# The monitoring tests start a real Prometheus server and run promtool on the shipped alert rules.
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null) \
      || echo "warning: could not install prometheus; the monitoring tests will be skipped" >&2
  fi
fi

.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
