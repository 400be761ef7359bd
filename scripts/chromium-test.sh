#!/usr/bin/env bash
# Headless Chromium for the explorer's browser tests: prints the path of a
# Chromium binary, installing Debian's `chromium` package when none is on
# PATH (as root or through sudo -n, under a lock so that concurrent test
# binaries do not race on dpkg), as scripts/postgres-test.sh does for
# PostgreSQL.
#
#   scripts/chromium-test.sh path      prints the binary's path (installs when absent)
#
# EMBER_CHROMIUM=/path/to/chrome skips the lookup and the install.
set -euo pipefail

die() { echo "chromium-test: $*" >&2; exit 1; }

# find_chromium prints the first Chromium-like binary on PATH.
find_chromium() {
	if [[ -n "${EMBER_CHROMIUM:-}" ]]; then
		[[ -x "$EMBER_CHROMIUM" ]] || die "EMBER_CHROMIUM=$EMBER_CHROMIUM is not an executable"
		echo "$EMBER_CHROMIUM"
		return
	fi
	local b
	for b in chromium chromium-browser google-chrome-stable google-chrome; do
		if command -v "$b" >/dev/null; then
			command -v "$b"
			return
		fi
	done
}

install_chromium() {
	local as=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null && sudo -n true 2>/dev/null ||
			die "Chromium is not installed and this user cannot install it (not root, no password-less sudo): run 'apt-get install chromium' as root"
		as=(sudo -n)
	fi
	command -v apt-get >/dev/null || die "Chromium is not installed and there is no apt-get: install chromium on PATH or set EMBER_CHROMIUM"
	echo "chromium-test: installing Debian's chromium package" >&2
	(
		flock -w 900 9 || die "timed out waiting for another Chromium install"
		[[ -n "$(find_chromium)" ]] && exit 0 # the other installer finished it
		"${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 ||
			die "apt-get update failed"
		# fonts-liberation: text renders with metrics close to the usual
		# sans-serif faces, so screenshots read well.
		"${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-liberation >&2 ||
			die "apt-get install chromium failed"
	) 9>"${TMPDIR:-/tmp}/ember-chromium-install.lock"
}

path() {
	[[ -n "$(find_chromium)" ]] || install_chromium
	local bin
	bin=$(find_chromium)
	[[ -n "$bin" ]] || die "no chromium binary on PATH after install"
	echo "$bin"
}

case "${1:-}" in
path) path ;;
*) die "usage: $0 path" ;;
esac
