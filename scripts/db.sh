# Sourced by make targets: find_database exports DATABASE_URL pointing at a
# PostgreSQL that answers, in this order:
#   1. DATABASE_URL, when it answers;
#   2. a server on 127.0.0.1:5432 (user postgres), creating database $DB_NAME;
#   3. a throwaway cluster under ./.data/pg from the machine's Postgres
#      binaries (run as the postgres user when we are root);
# or explains what to install.

DB_NAME=${DB_NAME:-strategist}
PG_PORT_LOCAL=${PG_PORT_LOCAL:-54329}

_pg_bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir; return
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

_pg_answers() { # url
  command -v psql >/dev/null 2>&1 || return 1
  PGCONNECT_TIMEOUT=3 psql "$1" -Atqc 'select 1' >/dev/null 2>&1
}

_as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    if command -v runuser >/dev/null 2>&1; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
  else
    "$@"
  fi
}

find_database() {
  if [ -n "${DATABASE_URL:-}" ]; then
    if _pg_answers "$DATABASE_URL"; then return 0; fi
    if ! command -v psql >/dev/null 2>&1; then return 0; fi # trust it; the server reports problems
    echo "DATABASE_URL is set but PostgreSQL does not answer there" >&2
    return 1
  fi
  local local_admin="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
  if _pg_answers "$local_admin"; then
    psql "$local_admin" -Atqc "select 1 from pg_database where datname='$DB_NAME'" | grep -q 1 ||
      psql "$local_admin" -qc "create database $DB_NAME" >/dev/null
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB_NAME?sslmode=disable"
    return 0
  fi
  local bindir; bindir=$(_pg_bindir)
  if [ -z "$bindir" ]; then
    cat >&2 <<'MSG'
No PostgreSQL found. Either:
  - install it (Debian/Ubuntu: sudo apt-get install postgresql), then run this again;
  - set DATABASE_URL to a PostgreSQL 13+ server you can use; or
  - run everything in containers: docker compose up
MSG
    return 1
  fi
  local dir; dir="$(pwd)/.data/pg"
  local url="postgres://postgres@127.0.0.1:$PG_PORT_LOCAL/postgres?sslmode=disable"
  if ! _pg_answers "$url"; then
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$(pwd)/.data"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      echo "starting a throwaway PostgreSQL cluster in .data/pg" >&2
      _as_postgres "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 >/dev/null
    fi
    _as_postgres "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
      -o "-p $PG_PORT_LOCAL -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
  fi
  psql "$url" -Atqc "select 1 from pg_database where datname='$DB_NAME'" | grep -q 1 ||
    psql "$url" -qc "create database $DB_NAME" >/dev/null
  export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT_LOCAL/$DB_NAME?sslmode=disable"
}
