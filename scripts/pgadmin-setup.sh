#!/usr/bin/env bash
# Prepare a machine for the pgAdmin console backend and its tests (tests/consoleagent/consoles/pgadmin/):
# the Debian packages PostgreSQL 15 + pgaudit + contrib, and pgAdmin 4 (pinned, in its own cached
# virtual environment, as `consoleagent console up pgadmin` would install it on first use).
# Idempotent; prints how long the pgAdmin install took. Usage: scripts/pgadmin-setup.sh [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-.venv/bin/python}"
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -x /usr/lib/postgresql/15/bin/postgres ] || [ ! -f /usr/lib/postgresql/15/lib/pgaudit.so ]; then
  as_root apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-15-pgaudit postgresql-contrib >&2
fi
started=$(date +%s)
"$python" - <<'PY'
from consoleagent.consoles.pgadmin.install import ensure_installed, venv_dir
print("pgAdmin venv:", ensure_installed())
PY
echo "pgAdmin ready in $(( $(date +%s) - started )) s" >&2
