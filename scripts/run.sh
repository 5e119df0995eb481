#!/usr/bin/env bash
# make run: start Strategist on a fresh machine. Finds or starts PostgreSQL,
# fetches the offline gene data when it is missing, and uses dev sign-in
# when no account exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/strategist}
source scripts/db.sh
find_database
# The offline gene data: STRATEGIST_DATA_DIR, else ./data, fetched (and
# checksummed) by scripts/fetch-data.sh when it is missing.
if [ -z "${STRATEGIST_DATA_DIR:-}" ] && [ ! -f data/pf3d7/GeneAnnotationPlasmoDB.txt ]; then
  echo "the offline gene data is not in ./data yet: fetching it (make data)..." >&2
  if ! scripts/fetch-data.sh; then
    cat >&2 <<'MSG'
Could not fetch the offline gene data (no network?). The server starts anyway.
  Works without it: signing in, conversations, and the catalog's searches and
  their parameters (in the app, or bin/strategist catalog search|describe).
  Needs it: result counts, gene look-ups and GO term names, which the offline
  planner uses to turn requests into strategies; answers that need the data
  say so instead.
Run `make data` when you are online (or set STRATEGIST_DATA_SOURCE to a local
copy of the data and run it), then `make run` again.
MSG
  fi
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
