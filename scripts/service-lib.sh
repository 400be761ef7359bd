# What the throwaway-service scripts (postgres-test.sh, prometheus-test.sh,
# chromium-test.sh) share. Sourced, not run: the sourcing script sets
# SCRIPT_NAME first, which prefixes every error.

die() { echo "$SCRIPT_NAME: $*" >&2; exit 1; }

# apt_install WHAT HINT FOUND PACKAGE... installs Debian's PACKAGEs as root or
# through sudo -n, under a lock so that concurrent test binaries do not race
# on dpkg. WHAT names the software in messages, HINT says what to do where
# there is no apt-get, FOUND is a command that prints something once WHAT is
# installed (another installer may have finished while this one waited for
# the lock). APT_ENV, if set, adds VAR=value words to apt-get's environment.
apt_install() {
	local what=$1 hint=$2 found=$3
	shift 3
	local as=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null && sudo -n true 2>/dev/null ||
			die "$what is not installed and this user cannot install it (not root, no password-less sudo): run 'apt-get install $*' as root"
		as=(sudo -n)
	fi
	command -v apt-get >/dev/null || die "$what is not installed and there is no apt-get: $hint"
	echo "$SCRIPT_NAME: installing Debian's $* package(s)" >&2
	local env=(env DEBIAN_FRONTEND=noninteractive ${APT_ENV:-})
	(
		flock -w 900 9 || die "timed out waiting for another $what install"
		[[ -n "$($found)" ]] && exit 0 # the other installer finished it
		"${as[@]}" "${env[@]}" apt-get update -q >&2 || die "apt-get update failed"
		"${as[@]}" "${env[@]}" apt-get install -y -q --no-install-recommends "$@" >&2 ||
			die "apt-get install $* failed"
	) 9>"${TMPDIR:-/tmp}/ember-$1-install.lock"
}

# free_port prints a TCP port nothing on 127.0.0.1 answers on, from 10000
# to 19999: below the ranges the Go tests' testnets reserve (20000-32767,
# internal/freeport.Range) and the kernel's ephemeral ports (32768 on),
# where any outgoing connection may take a port between our check and the
# server's bind.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((10000 + RANDOM % 10000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	die "no free port found"
}
