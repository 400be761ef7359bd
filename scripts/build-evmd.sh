#!/usr/bin/env bash
# Builds evmd, cosmos/evm's example chain, at the version bench/network
# compares Ember with, into build/evmd-$VERSION/evmd.
#   EVMD_SRC=/path/to/evm   build from that checkout (at the version)
#   otherwise               clone github.com/cosmos/evm at the version into build/
# Skips when the binary is there already.
set -euo pipefail

VERSION="${EVMD_VERSION:-v0.7.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/build/evmd-$VERSION/evmd"

if [ -x "$OUT" ]; then
	echo "evmd $VERSION: $OUT (already built)"
	exit 0
fi

SRC="${EVMD_SRC:-}"
if [ -z "$SRC" ]; then
	SRC="$ROOT/build/evm-src-$VERSION"
	if [ ! -d "$SRC/.git" ]; then
		git clone --depth 1 --branch "$VERSION" https://github.com/cosmos/evm "$SRC"
	fi
fi

# evmd/go.mod replaces github.com/cosmos/evm with the parent directory, so
# it builds inside the checkout, against that checkout's library.
mkdir -p "$(dirname "$OUT")"
echo "building evmd $VERSION from $SRC (a few minutes the first time)"
(cd "$SRC/evmd" && GOFLAGS= go build -o "$OUT" ./cmd/evmd)
echo "evmd $VERSION: $OUT"
