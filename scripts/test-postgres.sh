#!/usr/bin/env bash
# Start a local PostgreSQL (Debian's package) with an empty test database and print its URL,
# for tests/stratus/core/test_postgres.py: STRATUS_TEST_POSTGRES_URL=$(scripts/test-postgres.sh)
set -euo pipefail
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v pg_ctlcluster >/dev/null || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  as_root apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
version=$(ls /etc/postgresql | sort -n | tail -1)
as_root pg_ctlcluster "$version" main start >&2 2>/dev/null || true
for _ in $(seq 1 30); do as_root su postgres -c "pg_isready -q" && break; sleep 1; done
as_root su postgres -c "psql -q -v ON_ERROR_STOP=1" >&2 <<'SQL'
ALTER USER postgres PASSWORD 'stratus-test';
DROP DATABASE IF EXISTS stratus_test;
CREATE DATABASE stratus_test;
SQL
echo "postgresql+psycopg://postgres:stratus-test@127.0.0.1/stratus_test"
