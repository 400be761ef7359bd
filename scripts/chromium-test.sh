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

SCRIPT_NAME=chromium-test
# shellcheck source=scripts/service-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/service-lib.sh"

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

# fonts-liberation: text renders with metrics close to the usual sans-serif
# faces, so screenshots read well.
install_chromium() {
	apt_install Chromium "install chromium on PATH or set EMBER_CHROMIUM" find_chromium chromium fonts-liberation
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
