#!/usr/bin/env bash
# Installs what the real-client e2e tests (cmd/agentls/e2e_test.go) need and
# builds the VS Code extension:
#   - Neovim from apt (Debian bookworm: 0.7.2), if nvim is missing;
#   - a current Neovim (>= 0.11, from Debian sid, unpacked into
#     .cache/nvim-current by .ci/nvim-current.sh, not installed);
#   - npm ci in testdata/e2e/node, testdata/e2e/mcp (the MCP servers of the
#     e2e tests: @modelcontextprotocol/server-everything and crash.mjs on
#     @modelcontextprotocol/sdk) and editors/vscode, skipped when
#     node_modules already matches package-lock.json;
#   - editors/vscode: type-check (tsc --noEmit), bundle (esbuild) and package
#     (vsce, offline) to editors/vscode/agentls.vsix, skipped when nothing
#     that goes into it changed.
# Idempotent; any failing step fails the script. Then run:
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

if ! command -v nvim >/dev/null 2>&1; then
	step "installing neovim (apt)"
	export DEBIAN_FRONTEND=noninteractive
	quiet apt-get update -q
	quiet apt-get install -y -q --no-install-recommends neovim
fi
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
npm_ci "$repo/editors/vscode"

vsc=$repo/editors/vscode
stamp=$vsc/.stamp-vsix
want=$(hash_of "$vsc/package.json" "$vsc/package-lock.json" "$vsc/tsconfig.json" "$vsc/README.md" "$vsc/.vscodeignore" "$vsc"/src/*.ts)
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
