#!/usr/bin/env bash
# Installs cosmovisor (the Cosmos SDK's process manager for software
# upgrades) into build/cosmovisor, from the Go module proxy:
#
#   scripts/install-cosmovisor.sh            installs it unless build/cosmovisor exists
#
# It exits non-zero, saying why, when the proxy does not serve the module
# (some mirrors do not carry cosmossdk.io/tools/cosmovisor); the upgrade
# tests then run their own launcher of cosmovisor's layout and say so.
set -euo pipefail

VERSION=v1.7.1
MODULE=cosmossdk.io/tools/cosmovisor/cmd/cosmovisor
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN="$ROOT/build/cosmovisor"

if [[ -x "$BIN" ]]; then
	exit 0
fi
mkdir -p "$ROOT/build"
# GOFLAGS of the caller (e.g. -mod=vendor) must not apply to a tool
# installed at a version outside this module.
if ! out=$(GOBIN="$ROOT/build" GOFLAGS= go install "$MODULE@$VERSION" 2>&1); then
	echo "install-cosmovisor: go install $MODULE@$VERSION failed:" >&2
	echo "$out" >&2
	exit 1
fi
"$BIN" version --cosmovisor-only 2>/dev/null || true
