#!/usr/bin/env bash
# Set up a fresh Debian machine for consoleagent: a virtual environment with the package and its
# pinned dependencies, and Debian's Chromium for the browser. Safe to run again: it only does
# what is missing. Usage: scripts/bootstrap.sh [extra,...]   (default extra: test)
set -euo pipefail
cd "$(dirname "$0")/.."

EXTRAS="${1-test}"   # "" installs the package alone (what `make verify` needs)
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "need root to run: $*" >&2; exit 1; fi
}

# bubblewrap: the OS sandbox for ResourceCoder's generated scripts (no bwrap, no generated code runs).
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/bwrap ]; then
  log "Installing Debian's chromium and bubblewrap"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium bubblewrap >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  log "Creating virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi

# One stamp per installed set of extras, named by the hash of the pins: a command that needs fewer
# extras than an earlier one installed (make verify after make test) installs nothing.
pins=$(cat pyproject.toml requirements.lock | sha256sum | cut -c1-16)
covered() {  # is every extra in $EXTRAS in some stamp of these pins?
  local stamp have wanted
  for stamp in "$VENV"/.installed-"$pins"-*; do
    [ -e "$stamp" ] || continue
    have=",${stamp##*/.installed-$pins-},"
    for wanted in ${EXTRAS//,/ }; do
      case "$have" in *",$wanted,"*) ;; *) continue 2 ;; esac
    done
    return 0
  done
  return 1
}
if ! covered; then
  log "Installing consoleagent${EXTRAS:+[$EXTRAS]} with pinned dependencies"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  case ",$EXTRAS," in
    # torch before the packages that depend on it: this exact pin is the CPU build (no CUDA downloads).
    *,train,*) "$VENV/bin/python" -m pip install -q "torch==$(grep -i '^torch==' requirements.lock | cut -d= -f3)" ;;
  esac
  "$VENV/bin/python" -m pip install -q -c requirements.lock -e ".${EXTRAS:+[$EXTRAS]}"
  # what stays installed from an earlier stamp of the same pins is still there: keep their union
  union=$(ls "$VENV"/.installed-"$pins"-* 2>/dev/null | sed "s|.*/.installed-$pins-||" | tr '\n' ',' || true)
  union=$(printf '%s' "${union}${EXTRAS}" | tr ',' '\n' | grep -v -e '^$' -e '^base$' | sort -u | paste -sd, - || true)
  rm -f "$VENV"/.installed-*
  touch "$VENV/.installed-$pins-${union:-base}"
fi
