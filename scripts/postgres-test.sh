#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests: Debian's `postgresql` package
# (installed when absent), a cluster initialised in a temp dir, listening on
# 127.0.0.1 and on a unix socket in that dir, trust auth, durability off.
#
#   scripts/postgres-test.sh start DIR [PORT [OWNER_PID]]   prints the server's DSN
#   scripts/postgres-test.sh stop DIR                       stops it (DIR is left to the caller)
#
# With OWNER_PID, a watcher stops the server and removes DIR once that
# process is gone, so a test binary that crashes or times out leaves nothing
# running.
#
# The explorer tests run it through explorer/sqlstore/pgtest; it is also handy
# by hand: eval the DSN into --explorer.db (append a database name).
set -euo pipefail

SCRIPT_NAME=postgres-test
# shellcheck source=scripts/service-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/service-lib.sh"

# pg_bindir prints the directory of the newest installed server's binaries.
pg_bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [[ -n "$d" && -x "$d/initdb" ]]; then
		echo "$d"
	elif command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
		dirname "$(command -v initdb)"
	fi
}

install_postgres() {
	apt_install PostgreSQL "install a PostgreSQL server (initdb, pg_ctl) on PATH" pg_bindir postgresql
}

# run_pg runs a server binary; PostgreSQL refuses to run as root, so root
# runs it as the postgres user the package creates.
run_pg() {
	if [[ $(id -u) -eq 0 ]]; then
		id postgres >/dev/null 2>&1 || die "running as root and there is no postgres user to run the server as"
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

start() {
	local dir=$1 port=${2:-} owner=${3:-}
	[[ -d "$dir" ]] || die "start: $dir is not a directory"
	[[ -n "$(pg_bindir)" ]] || install_postgres
	local bin
	bin=$(pg_bindir)
	[[ -n "$bin" ]] || die "PostgreSQL binaries (initdb, pg_ctl) not found after install"
	[[ -n "$port" ]] || port=$(free_port)
	if [[ $(id -u) -eq 0 ]]; then
		chown -R postgres: "$dir"
		runuser -u postgres -- test -w "$dir" ||
			die "the postgres user cannot reach $dir (a parent directory is private): use a TMPDIR under /tmp"
	fi
	run_pg "$bin/initdb" -D "$dir/data" -U ember --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
		die "initdb failed: $(tail -n 20 "$dir/initdb.log")"
	# Throwaway data: no fsync; enough connections for parallel test stores.
	local opts="-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
	opts+=" -c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB"
	run_pg "$bin/pg_ctl" start -w -t 60 -D "$dir/data" -l "$dir/server.log" -o "$opts" >&2 ||
		die "server did not start: $(tail -n 20 "$dir/server.log" 2>/dev/null)"
	[[ -n "$owner" ]] && watch_owner "$owner" "$dir" "$bin"
	echo "postgres://ember@127.0.0.1:$port/postgres?sslmode=disable"
}

# watch_owner stops the server in dir when process owner exits. Detached
# from our stdout, which the caller reads to its end.
watch_owner() {
	local owner=$1 dir=$2 bin=$3
	(
		while kill -0 "$owner" 2>/dev/null; do sleep 2; done
		[[ -f "$dir/data/postmaster.pid" ]] && run_pg "$bin/pg_ctl" stop -D "$dir/data" -m immediate
		rm -rf "$dir"
	) </dev/null >/dev/null 2>&1 &
	disown
}

stop() {
	local dir=$1 bin
	bin=$(pg_bindir)
	[[ -n "$bin" && -f "$dir/data/postmaster.pid" ]] || return 0
	run_pg "$bin/pg_ctl" stop -D "$dir/data" -m immediate -w >&2 || true
}

case "${1:-}" in
start) [[ $# -ge 2 ]] || die "usage: $0 start DIR [PORT [OWNER_PID]]"; start "$2" "${3:-}" "${4:-}" ;;
stop) [[ $# -eq 2 ]] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start DIR [PORT [OWNER_PID]] | stop DIR" ;;
esac
