#!/usr/bin/env bash
# Set up a fresh Debian machine for consoleagent: a virtual environment with the package and its
# pinned dependencies, and Debian's Chromium for the browser. Safe to run again: it only does
# what is missing. Usage: scripts/bootstrap.sh [extra,...]   (default extra: test)
set -euo pipefail
cd "$(dirname "$0")/.."

EXTRAS="${1:-test}"
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "need root to run: $*" >&2; exit 1; fi
}

if [ ! -x /usr/bin/chromium ]; then
  log "Installing Debian's chromium"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  log "Creating virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.installed-$(cat pyproject.toml requirements.lock | sha256sum | cut -c1-16)-$EXTRAS"
if [ ! -f "$stamp" ]; then
  log "Installing consoleagent[$EXTRAS] with pinned dependencies"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  case ",$EXTRAS," in
    # torch before the packages that depend on it: this exact pin is the CPU build (no CUDA downloads).
    *,train,*) "$VENV/bin/python" -m pip install -q "torch==$(grep -i '^torch==' requirements.lock | cut -d= -f3)" ;;
  esac
  "$VENV/bin/python" -m pip install -q -c requirements.lock -e ".[$EXTRAS]"
  rm -f "$VENV"/.installed-*
  touch "$stamp"
fi
