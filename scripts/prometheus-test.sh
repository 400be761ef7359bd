#!/usr/bin/env bash
# A throwaway Prometheus server for tests: Debian's `prometheus` package
# (installed when absent), scraping one target every second, its data in a
# temp dir, its HTTP API on 127.0.0.1.
#
#   scripts/prometheus-test.sh start DIR TARGET [OWNER_PID]   prints the server's URL
#   scripts/prometheus-test.sh stop DIR                       stops it (DIR is left to the caller)
#
# TARGET is host:port of a /metrics endpoint. With OWNER_PID, a watcher
# stops the server once that process is gone, so a test binary that crashes
# or times out leaves nothing running. The metrics e2e test runs it.
set -euo pipefail

SCRIPT_NAME=prometheus-test
# shellcheck source=scripts/service-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/service-lib.sh"

prom_bin() {
	if command -v prometheus >/dev/null; then
		command -v prometheus
	elif [[ -x /usr/bin/prometheus ]]; then
		echo /usr/bin/prometheus
	fi
}

# The package's own service is not needed: RUNLEVEL=1 asks its maintainer
# scripts not to start it.
install_prometheus() {
	APT_ENV=RUNLEVEL=1 apt_install Prometheus "put a prometheus binary on PATH" prom_bin prometheus
}

start() {
	local dir=$1 target=$2 owner=${3:-}
	[[ -d "$dir" ]] || die "start: $dir is not a directory"
	[[ -n "$(prom_bin)" ]] || install_prometheus
	local bin port
	bin=$(prom_bin)
	[[ -n "$bin" ]] || die "prometheus binary not found after install"
	cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ember
    static_configs:
      - targets: ['$target']
YML
	# A port free when chosen can be taken before Prometheus binds it: then
	# choose another.
	for _ in 1 2 3; do
		port=$(free_port)
		if launch "$bin" "$dir" "$port"; then
			[[ -n "$owner" ]] && watch_owner "$owner" "$dir"
			echo "http://127.0.0.1:$port"
			return
		fi
		grep -q "address already in use" "$dir/prometheus.log" || break
	done
	die "prometheus did not start: $(tail -n 20 "$dir/prometheus.log")"
}

# launch starts Prometheus on port and waits until it listens; it fails if
# the server exits first or does not listen within a minute.
launch() {
	local bin=$1 dir=$2 port=$3
	"$bin" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
		--web.listen-address="127.0.0.1:$port" >"$dir/prometheus.log" 2>&1 </dev/null &
	echo $! >"$dir/prometheus.pid"
	disown
	for _ in $(seq 1 120); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		kill -0 "$(cat "$dir/prometheus.pid")" 2>/dev/null || return 1
		sleep 0.5
	done
	stop "$dir"
	return 1
}

# watch_owner stops the server in dir when process owner exits.
watch_owner() {
	local owner=$1 dir=$2
	(
		while kill -0 "$owner" 2>/dev/null; do sleep 2; done
		stop "$dir"
	) </dev/null >/dev/null 2>&1 &
	disown
}

stop() {
	local dir=$1 pid
	[[ -f "$dir/prometheus.pid" ]] || return 0
	pid=$(cat "$dir/prometheus.pid")
	kill "$pid" 2>/dev/null || true
	rm -f "$dir/prometheus.pid"
}

case "${1:-}" in
start) [[ $# -ge 3 ]] || die "usage: $0 start DIR TARGET [OWNER_PID]"; start "$2" "$3" "${4:-}" ;;
stop) [[ $# -eq 2 ]] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start DIR TARGET [OWNER_PID] | stop DIR" ;;
esac
