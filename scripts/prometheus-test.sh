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

die() { echo "prometheus-test: $*" >&2; exit 1; }

prom_bin() {
	if command -v prometheus >/dev/null; then
		command -v prometheus
	elif [[ -x /usr/bin/prometheus ]]; then
		echo /usr/bin/prometheus
	fi
}

# install_prometheus installs Debian's package, as root or through sudo -n,
# under a lock so that concurrent test binaries do not race on dpkg. The
# package's own service is not needed: policy-rc.d keeps it from starting.
install_prometheus() {
	local as=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null && sudo -n true 2>/dev/null ||
			die "Prometheus is not installed and this user cannot install it (not root, no password-less sudo): run 'apt-get install prometheus' as root"
		as=(sudo -n)
	fi
	command -v apt-get >/dev/null || die "Prometheus is not installed and there is no apt-get: put a prometheus binary on PATH"
	echo "prometheus-test: installing Debian's prometheus package" >&2
	(
		flock -w 600 9 || die "timed out waiting for another Prometheus install"
		[[ -n "$(prom_bin)" ]] && exit 0 # the other installer finished it
		"${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 ||
			die "apt-get update failed"
		"${as[@]}" env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -q --no-install-recommends prometheus >&2 ||
			die "apt-get install prometheus failed"
	) 9>"${TMPDIR:-/tmp}/ember-prometheus-install.lock"
}

# free_port prints a TCP port nothing on 127.0.0.1 answers on.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	die "no free port found"
}

start() {
	local dir=$1 target=$2 owner=${3:-}
	[[ -d "$dir" ]] || die "start: $dir is not a directory"
	[[ -n "$(prom_bin)" ]] || install_prometheus
	local bin port
	bin=$(prom_bin)
	[[ -n "$bin" ]] || die "prometheus binary not found after install"
	port=$(free_port)
	cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ember
    static_configs:
      - targets: ['$target']
YML
	"$bin" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
		--web.listen-address="127.0.0.1:$port" >"$dir/prometheus.log" 2>&1 </dev/null &
	echo $! >"$dir/prometheus.pid"
	disown
	local url="http://127.0.0.1:$port"
	for _ in $(seq 1 120); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			[[ -n "$owner" ]] && watch_owner "$owner" "$dir"
			echo "$url"
			return
		fi
		kill -0 "$(cat "$dir/prometheus.pid")" 2>/dev/null || die "prometheus exited: $(tail -n 20 "$dir/prometheus.log")"
		sleep 0.5
	done
	die "prometheus did not listen on $url: $(tail -n 20 "$dir/prometheus.log")"
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
