#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: data under target/pg of the repository, listening
# on 127.0.0.1 only, run by a non-root user (PostgreSQL refuses to run as root).
#
#   bash .ci/postgres.sh start          starts it (installs Debian's postgresql when missing) and
#                                       prints the export lines the tests read; eval them
#   bash .ci/postgres.sh stop           stops it (no-op when it is not running)
#   bash .ci/postgres.sh run CMD...     start, run CMD with the variables exported, stop
#   bash .ci/postgres.sh env            prints the export lines without starting anything
#   bash .ci/postgres.sh crash          stops it at once (pg_ctl stop -m immediate: no shutdown
#                                       checkpoint, as a crash), for the restart test
#
# Settings (environment): AGENTMEMORY_PG_PORT (25432: below Linux's ephemeral range, 32768-60999,
# where any client connection may hold the port for a while), AGENTMEMORY_PG_OS_USER (the user that
# runs the server when this script runs as root; postgres, created when missing).
# Diagnostics go to stderr; stdout carries only the export lines.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${AGENTMEMORY_PG_PORT:-25432}"
BASE="$ROOT/target/pg"
DATA="$BASE/data"
LOG="$BASE/server.log"
SOCKET_DIR="/tmp/agentmemory-pg-$PORT"
DB=agentmemory_test
DB_USER=agentmemory_test
# a loopback-only, throwaway test cluster: the password is not a secret
DB_PASSWORD=agentmemory-test-password
URL="jdbc:postgresql://127.0.0.1:$PORT/$DB"

log() { echo "postgres.sh: $*" >&2; }

# The directory of pg_ctl, initdb, postgres and psql: Debian's newest version, or the PATH's.
find_bindir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
    echo "$dir"
  elif command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir
  fi
}

ensure_installed() {
  BIN="$(find_bindir)"
  if [ -n "$BIN" ]; then
    return
  fi
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "no PostgreSQL server binaries found (initdb); install Debian's postgresql package"
    exit 1
  fi
  log "installing Debian's postgresql package"
  # no cluster of its own on 5432: this script makes the one it uses
  mkdir -p /etc/postgresql-common
  [ -e /etc/postgresql-common/createcluster.conf ] || echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  BIN="$(find_bindir)"
  if [ -z "$BIN" ]; then
    log "apt-get installed postgresql but no initdb was found under /usr/lib/postgresql"
    exit 1
  fi
}

# Runs a command as the server's user: as root through runuser, otherwise as the caller.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$OS_USER" -- "$@"
  else
    "$@"
  fi
}

ensure_os_user() {
  if [ "$(id -u)" -ne 0 ]; then
    OS_USER="$(id -un)"
    return
  fi
  OS_USER="${AGENTMEMORY_PG_OS_USER:-postgres}"
  if ! id -u "$OS_USER" >/dev/null 2>&1; then
    log "creating the system user $OS_USER to run the server"
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$OS_USER"
  fi
  # the server's user must reach target/pg: make each directory above it traversable (x only)
  local d="$ROOT"
  while [ "$d" != "/" ]; do
    if ! runuser -u "$OS_USER" -- test -x "$d"; then
      log "making $d traversable for $OS_USER"
      chmod o+x "$d"
    fi
    d="$(dirname "$d")"
  done
}

is_running() {
  [ -f "$DATA/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

print_env() {
  echo "export AGENTMEMORY_TEST_PG_URL='$URL'"
  echo "export AGENTMEMORY_TEST_PG_USER='$DB_USER'"
  echo "export AGENTMEMORY_TEST_PG_PASSWORD='$DB_PASSWORD'"
  # lets a test stop and restart this server (it is the script's own, under target/)
  echo "export AGENTMEMORY_TEST_PG_SCRIPT='$ROOT/.ci/postgres.sh'"
}

psql_admin() {
  as_owner "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$SOCKET_DIR" -p "$PORT" -d postgres "$@"
}

start() {
  ensure_installed
  ensure_os_user
  if is_running; then
    log "already running on 127.0.0.1:$PORT (data $DATA)"
    print_env
    return
  fi
  mkdir -p "$BASE" "$SOCKET_DIR"
  if [ "$(id -u)" -eq 0 ]; then
    chown "$OS_USER" "$BASE" "$SOCKET_DIR"
  fi
  chmod 700 "$BASE"
  if [ ! -f "$DATA/PG_VERSION" ]; then
    rm -rf "$DATA"
    log "initdb $DATA"
    # local socket: trust (only this user can reach the 0700 socket dir); TCP: passwords
    as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C.UTF-8 >"$BASE/initdb.log" 2>&1 \
      || { cat "$BASE/initdb.log" >&2; exit 1; }
  fi
  chmod 700 "$SOCKET_DIR"
  log "starting on 127.0.0.1:$PORT (log $LOG)"
  # fsync and synchronous_commit keep their defaults (on): the durability tests need them
  as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories=$SOCKET_DIR -c max_connections=200" \
    start >&2 || { tail -n 30 "$LOG" >&2; exit 1; }
  if [ "$(psql_admin -tA -c "SELECT 1 FROM pg_roles WHERE rolname = '$DB_USER'")" != "1" ]; then
    psql_admin -c "CREATE ROLE $DB_USER LOGIN PASSWORD '$DB_PASSWORD'"
  fi
  if [ "$(psql_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]; then
    psql_admin -c "CREATE DATABASE $DB OWNER $DB_USER"
  fi
  log "ready: $URL (user $DB_USER)"
  print_env
}

stop() {
  BIN="$(find_bindir)"
  if [ -z "$BIN" ] || [ ! -f "$DATA/postmaster.pid" ]; then
    log "not running"
    return
  fi
  ensure_os_user
  if is_running; then
    as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >&2
  else
    log "not running"
  fi
}

crash() {
  BIN="$(find_bindir)"
  ensure_os_user
  if is_running; then
    as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate -w -t 60 stop >&2
  else
    log "not running"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  crash) crash ;;
  env) print_env ;;
  run)
    shift
    [ $# -gt 0 ] || { log "usage: $0 run COMMAND..."; exit 2; }
    lines="$(start)"
    eval "$lines"
    trap stop EXIT
    export AGENTMEMORY_REQUIRE_PG=1
    "$@"
    ;;
  *)
    echo "usage: $0 start|stop|crash|env|run COMMAND..." >&2
    exit 2
    ;;
esac
