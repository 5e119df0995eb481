#!/usr/bin/env bash
# Strategist's browser tests (make test-e2e): headless Debian Chromium driven
# by playwright-core under node --test, against the real server on a free
# loopback port, a fresh PostgreSQL database and the offline gene data.
#
#   scripts/e2e.sh                 run every tests/e2e/*.test.js
#   scripts/e2e.sh measure.bench.js  run other files of tests/e2e instead
#
# Environment: E2E_SCREENSHOTS_DIR (default tests/e2e/test-results/screenshots;
# set it to docs/screenshots to refresh the README's pictures), CHROMIUM
# (default /usr/bin/chromium), STRATEGIST_BIN (a built binary to test instead
# of building bin/strategist), E2E_KEEP_DB=1 keeps the database for a look
# after the run. The server's log is tests/e2e/test-results/server.log.
#
# The server's live sites (STRATEGIST_WDK_BASE_URL) point at the WDK fake
# (cmd/wdkfake, answering from the offline snapshot), started first on its
# own port; its log is tests/e2e/test-results/wdkfake.log. WDKFAKE_BIN is a
# built fake to use instead of building bin/wdkfake. E2E_LOG_LEVEL (default
# warn) is the server's log level.
set -euo pipefail
caller_pwd=$PWD
cd "$(dirname "$0")/.."
root=$(pwd)
start=$(date +%s)

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "e2e: installing Debian's chromium" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "e2e: $chromium not found: install Debian's chromium (sudo apt-get install chromium) or set CHROMIUM" >&2
    exit 1
  fi
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "e2e: node and npm are required (Debian: sudo apt-get install nodejs npm)" >&2
  exit 1
fi

# The pinned packages (playwright-core, and the protocol clients of
# protocols.test.js: @modelcontextprotocol/sdk, openai, @a2a-js/sdk; of agui.test.js:
# @ag-ui/client; of acp.test.js: @agentclientprotocol/sdk, which runs bin/strategist acp;
# of axe.test.js: axe-core, evaluated in the page):
# installed from the lockfile when any is missing or at another version than package.json pins.
if ! (cd tests/e2e && node -e '
  const deps = require("./package.json").dependencies;
  for (const [name, want] of Object.entries(deps)) {
    if (require("./node_modules/" + name + "/package.json").version !== want) process.exit(1);
  }' 2>/dev/null); then
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ -n "${STRATEGIST_BIN:-}" ]; then
  bin=$(cd "$caller_pwd" && realpath "$STRATEGIST_BIN")
else
  make --no-print-directory build >/dev/null
  bin=$root/bin/strategist
fi
if [ -n "${WDKFAKE_BIN:-}" ]; then
  fake_bin=$(cd "$caller_pwd" && realpath "$WDKFAKE_BIN")
else
  go build -trimpath -o bin/wdkfake ./cmd/wdkfake
  fake_bin=$root/bin/wdkfake
fi

source scripts/data-dir.sh
find_data_dir
if [ -z "${STRATEGIST_DATA_DIR:-}" ]; then
  echo "e2e: the offline gene data is required (make data)" >&2
  exit 1
fi

source scripts/db.sh
find_database
base_url=${DATABASE_URL%%\?*}
query=${DATABASE_URL#"$base_url"}
db_name="strategist_e2e_$(date +%s)_$$"
e2e_db_url="${base_url%/*}/${db_name}${query}"
psql "$DATABASE_URL" -qc "create database $db_name" >/dev/null

results=tests/e2e/test-results
mkdir -p "$results"
server_log=$results/server.log
server_pid=
fake_log=$results/wdkfake.log
fake_pid=

cleanup() {
  local status=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      echo "e2e: the server did not stop within 10 s; killing it" >&2
      kill -KILL "$server_pid" 2>/dev/null || true
    fi
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -n "$fake_pid" ] && kill -0 "$fake_pid" 2>/dev/null; then
    kill -TERM "$fake_pid" 2>/dev/null || true
    wait "$fake_pid" 2>/dev/null || true
  fi
  if [ "${E2E_KEEP_DB:-}" = 1 ]; then
    echo "e2e: kept database $e2e_db_url" >&2
  else
    psql "$DATABASE_URL" -qc "drop database if exists $db_name with (force)" >/dev/null 2>&1 ||
      echo "e2e: could not drop database $db_name" >&2
  fi
  if [ "$status" != 0 ] && [ -s "$server_log" ]; then
    echo "e2e: last lines of the server log ($server_log):" >&2
    tail -n 40 "$server_log" >&2
  fi
  echo "e2e: finished in $(( $(date +%s) - start ))s" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# The WDK fake, for the live sites.
fake_port=$(free_port)
"$fake_bin" -addr "127.0.0.1:$fake_port" -data "$STRATEGIST_DATA_DIR" >"$fake_log" 2>&1 &
fake_pid=$!
fake_url="http://127.0.0.1:$fake_port"
for i in $(seq 1 150); do
  if curl -fsS -o /dev/null "$fake_url/__fake/healthz" 2>/dev/null; then break; fi
  if ! kill -0 "$fake_pid" 2>/dev/null; then
    echo "e2e: the WDK fake exited during start-up:" >&2
    tail -n 20 "$fake_log" >&2
    exit 1
  fi
  if [ "$i" = 150 ]; then
    echo "e2e: the WDK fake was not ready within 30 s" >&2
    exit 1
  fi
  sleep 0.2
done

# Clear model keys from the caller's environment: the tests expect the offline
# engine as the default and scripted models from the test scripts directory.
# The browser tests' few accounts start turns from many tests and every
# protocol at once; the per-user turn budget is tested in Go
# (cmd/server/budget_e2e_test.go), so here it is raised out of their way.
server_env=(env -u GEMINI_API_KEY -u OPENAI_BASE_URL -u OPENAI_API_KEY -u STRATEGIST_MODEL
  DATABASE_URL="$e2e_db_url" STRATEGIST_AUTH=local STRATEGIST_DATA_DIR="$STRATEGIST_DATA_DIR"
  STRATEGIST_SCRIPTS_DIR="$root/cmd/server/testdata/scripts" STRATEGIST_AUTO_APPROVE=false
  STRATEGIST_LOG_LEVEL=${E2E_LOG_LEVEL:-warn} STRATEGIST_WDK_BASE_URL="$fake_url/plasmo/service"
  STRATEGIST_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"
  STRATEGIST_TURN_RATE=100 STRATEGIST_RUNNING_TURNS=100)

"${server_env[@]}" "$bin" migrate >/dev/null
declare -A password token
for who in alice bob; do
  password[$who]=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  printf '%s\n' "${password[$who]}" | "${server_env[@]}" "$bin" user create --email "$who@example.org" >/dev/null
  token[$who]=$("${server_env[@]}" "$bin" user token --email "$who@example.org" --name e2e 2>/dev/null)
done

port=$(free_port)
"${server_env[@]}" STRATEGIST_ADDR="127.0.0.1:$port" "$bin" serve >"$server_log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for i in $(seq 1 150); do
  if curl -fsS -o /dev/null "$base/readyz" 2>/dev/null; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "e2e: the server exited during start-up" >&2
    exit 1
  fi
  if [ "$i" = 150 ]; then
    echo "e2e: the server was not ready within 30 s" >&2
    exit 1
  fi
  sleep 0.2
done

shots=${E2E_SCREENSHOTS_DIR:-$results/screenshots}
case $shots in /*) ;; *) shots=$root/$shots ;; esac
cd tests/e2e
files=("$@")
if [ ${#files[@]} = 0 ]; then
  files=(*.test.js)
fi
E2E_BASE_URL=$base E2E_STRATEGIST_BIN="$bin" CHROMIUM=$chromium E2E_SCREENSHOTS_DIR=$shots \
  E2E_RESULTS_DIR="$root/$results" E2E_WDK_FAKE_URL="$fake_url" \
  E2E_USER1_EMAIL=alice@example.org E2E_USER1_PASSWORD="${password[alice]}" E2E_USER1_TOKEN="${token[alice]}" \
  E2E_USER2_EMAIL=bob@example.org E2E_USER2_PASSWORD="${password[bob]}" E2E_USER2_TOKEN="${token[bob]}" \
  node --test --test-concurrency=1 --test-reporter=spec "${files[@]}"
