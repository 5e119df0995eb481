#!/usr/bin/env bash
# make run: start Strategist on a fresh machine. Finds or starts PostgreSQL,
# finds the offline gene data, and uses dev sign-in when no account exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/strategist}
source scripts/db.sh
find_database
source scripts/data-dir.sh
find_data_dir || true
if [ -z "${STRATEGIST_DATA_DIR:-}" ] && [ ! -f data/pf3d7/GeneAnnotationPlasmoDB.txt ]; then
  echo "fetching the offline gene data (make data)..." >&2
  scripts/fetch-data.sh || echo "could not fetch the gene data; the server starts, but offline counts are unavailable until make data succeeds" >&2
fi
"$bin" migrate >/dev/null
if [ -z "${STRATEGIST_AUTH:-}" ]; then
  if [ "$("$bin" user count)" = 0 ]; then
    export STRATEGIST_AUTH=dev
    echo "no accounts yet: signing everyone in as the local dev user (STRATEGIST_AUTH=dev, loopback only)" >&2
    echo "create an account with: $bin user create --email you@example.org" >&2
  fi
fi
echo "Strategist on http://${STRATEGIST_ADDR:-127.0.0.1:8080}" >&2
exec "$bin" serve
