#!/usr/bin/env bash
# Run a command (the tests) with TSQE_TEST_POSTGRESQL naming a throw-away PostgreSQL cluster.
#
#   tests/postgres_cluster.sh COMMAND [ARGS...]
#
# The cluster lives in a temporary directory (data, log and unix socket), listens on a free port of
# 127.0.0.1, runs as an unprivileged user (nobody when this script runs as root, postgres refuses root),
# trusts local connections and does not fsync: it exists for one test run and is stopped and deleted when the
# command ends, whether it passed, failed or was interrupted. PostgreSQL comes from Debian's packages and is
# installed with apt-get when missing and this script runs as root. When it cannot be had, the command runs
# anyway with TSQE_TEST_POSTGRESQL_SKIPPED saying why, so the PostgreSQL tests skip with that reason and
# every other test runs. A TSQE_TEST_POSTGRESQL already set is used as it is.
set -euo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

if [[ -n "${TSQE_TEST_POSTGRESQL:-}" ]]; then
    exec "$@"
fi

COMMAND=("$@")

skip() {
    echo "postgres_cluster: $1; the PostgreSQL tests are skipped" >&2
    export TSQE_TEST_POSTGRESQL_SKIPPED="$1"
    exec "${COMMAND[@]}"
}

bindir() {
    # The newest installed major version's server programs (Debian keeps them off PATH).
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n | tail -n 1 || true)
    if [[ -n "$dir" && -x "$dir/initdb" ]]; then
        echo "$dir"
    fi
}

BIN=$(bindir)
if [[ -z "$BIN" ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        skip "PostgreSQL is not installed and installing it needs root"
    fi
    if ! command -v apt-get >/dev/null; then
        skip "PostgreSQL is not installed and there is no apt-get to install it"
    fi
    echo "postgres_cluster: installing PostgreSQL from Debian's packages" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }; then
        skip "apt-get could not install postgresql"
    fi
    BIN=$(bindir)
    if [[ -z "$BIN" ]]; then
        skip "the postgresql package brought no /usr/lib/postgresql/*/bin/initdb"
    fi
fi

# As root, the cluster's programs run as nobody; otherwise as the current user.
if [[ $(id -u) -eq 0 ]]; then
    as_owner() { runuser -u nobody -- "$@"; }
    OWNER=nobody
else
    as_owner() { "$@"; }
    OWNER=$(id -un)
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/tsqe-pg.XXXXXX")
chmod 755 "$DIR"
chown "$OWNER" "$DIR"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

stop() {
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
}
trap stop EXIT
trap 'exit 130' INT TERM

as_owner "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-locale --no-sync >"$DIR/initdb.log" 2>&1 || {
    cat "$DIR/initdb.log" >&2
    echo "postgres_cluster: initdb failed" >&2
    exit 1
}
as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
    -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
        -c full_page_writes=off -c max_connections=200" start >/dev/null || {
    cat "$DIR/server.log" >&2
    echo "postgres_cluster: the server did not start" >&2
    exit 1
}

export TSQE_TEST_POSTGRESQL="postgresql+psycopg://postgres@127.0.0.1:$PORT/postgres"
echo "postgres_cluster: PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on port $PORT ($DIR)" >&2
# The command runs as a child the shell waits for, so that a TERM (a CI job cancelled) stops it and then the
# cluster at once: bash runs a trap only after the foreground command has exited. A child started with & ignores
# Ctrl+C's INT in a script, so INT is passed on as TERM too.
set +e
"${COMMAND[@]}" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 130' INT
wait "$child"
status=$?
set -e
exit $status
