#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests (issue 32): a cluster in a temporary
# directory owned by an unprivileged user (initdb refuses root), listening on
# 127.0.0.1 on a free port, from Debian's `postgresql` package. Prints
#   export JURY_TEST_POSTGRES_URL=postgres://jury_test@127.0.0.1:PORT/postgres
# (a superuser with trust authentication on loopback: the tests create a
# database each and drop it). `eval "$(.ci/postgres.sh)"` starts one and sets
# the variable; `.ci/postgres.sh stop DIR` stops the cluster in DIR.
set -euo pipefail

if [ "${1:-}" = stop ]; then
  dir="$2"
  runuser -u "$(stat -c %U "$dir")" -- "$(cat "$dir/bindir")/pg_ctl" -D "$dir/data" -m fast stop >/dev/null
  rm -rf "$dir"
  exit 0
fi

bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "no PostgreSQL server found (apt-get install -y postgresql)" >&2
  exit 1
fi

user=jury-pg
if ! id -u "$user" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
fi

dir="$(mktemp -d /tmp/jury-pg.XXXXXX)"
chown "$user" "$dir"
echo "$bindir" >"$dir/bindir"

# A free port: the kernel's choice for a socket bound to port 0.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"

run() { runuser -u "$user" -- "$@"; }
run "$bindir/initdb" -D "$dir/data" -U jury_test --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# Unix sockets in the cluster's own directory (not /var/run/postgresql, which
# belongs to the packaged cluster); TCP on loopback only; quick to start.
run "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }

echo "export JURY_TEST_POSTGRES_URL=postgres://jury_test@127.0.0.1:$port/postgres"
echo "export JURY_TEST_POSTGRES_DIR=$dir"
