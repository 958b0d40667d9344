#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server from Debian's packages for the storage tests and prints
# the shell lines that point the tests at it:
#     eval "$(bash scripts/start-postgres.sh)"
# The server lives in a fresh temp folder, listens on a free localhost port only, trusts local
# connections (it holds nothing but test data) and stops by itself, folder removed, when the
# process that asked for it exits (the caller's shell, or the pid given as $1).
# As root it runs the server as the `postgres` user, since PostgreSQL refuses to run as root.
set -euo pipefail

# The caller is the shell that ran `eval "$(...)"`. When that shell forked a subshell for the
# command substitution (it does with a redirection, `$(bash ... 2>/dev/null)`), our parent is
# that short-lived copy, with the same command line as its own parent: then watch the parent.
caller_of() {
  local pid="$1" parent
  parent="$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null || true)"
  if [ -n "$parent" ] && [ "$parent" -gt 1 ] && cmp -s "/proc/$pid/cmdline" "/proc/$parent/cmdline"; then
    pid="$parent"
  fi
  echo "$pid"
}
watch_pid="${1:-$(caller_of "$PPID")}"
bin_dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$bin_dir" ] || [ ! -x "$bin_dir/initdb" ]; then
  echo "start-postgres: PostgreSQL is not installed (apt-get install postgresql)" >&2
  exit 1
fi

data_root="$(mktemp -d /tmp/rummi-pg.XXXXXX)"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ "$(id -u)" -eq 0 ]; then
  chown postgres:postgres "$data_root"
  user=postgres
else
  user="$(id -un)"
fi

as_owner "$bin_dir/initdb" -D "$data_root/data" -U "$user" --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
  >"$data_root/initdb.log" 2>&1 || { cat "$data_root/initdb.log" >&2; exit 1; }
as_owner "$bin_dir/pg_ctl" -D "$data_root/data" -l "$data_root/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $data_root -c fsync=on" start >/dev/null \
  || { cat "$data_root/server.log" >&2; exit 1; }

# Stop the server when the caller goes away. The watcher must not hold this script's stdout,
# or `$(...)` would wait for it forever.
setsid bash -c '
  while kill -0 "$1" 2>/dev/null; do sleep 2; done
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$2/pg_ctl" -D "$3/data" -m fast stop
  else "$2/pg_ctl" -D "$3/data" -m fast stop; fi
  rm -rf "$3"
' _ "$watch_pid" "$bin_dir" "$data_root" </dev/null >/dev/null 2>&1 &

echo "export RUMMI_TEST_POSTGRES_URL=postgresql://$user@127.0.0.1:$port/postgres"
echo "export RUMMI_TEST_POSTGRES_DIR=$data_root"
echo "start-postgres: PostgreSQL $(basename "$(dirname "$bin_dir")") on 127.0.0.1:$port (data in $data_root)" >&2
