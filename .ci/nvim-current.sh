#!/usr/bin/env bash
# Fetches a current Neovim (>= 0.11) for the real-client e2e tests, which
# also run the plugin on it (cmd/agentls/e2e_test.go, Neovim_current_E13).
#
# Debian bookworm (and its backports) ship 0.7.2 and trixie 0.10; Debian
# unstable (sid) has a current release. Its packages are downloaded with
# apt-get from a private package list and extracted into .cache/nvim-current
# — not installed: they come with sid's C library, which the wrapper
# .cache/nvim-current/bin/nvim loads through its own dynamic loader, so the
# system is left as it is. Idempotent; prints the wrapper's path.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$PWD/.cache/nvim-current
wrapper=$dest/bin/nvim
if [[ -x $wrapper ]] && "$wrapper" --headless --clean +'lua if vim.fn.has("nvim-0.11") == 0 then vim.cmd("cquit 1") end' +qall >/dev/null 2>&1; then
	echo "$wrapper"
	exit 0
fi

apt=$dest/apt
rm -rf "$dest"
mkdir -p "$apt/lists/partial" "$dest/debs" "$dest/root" "$dest/bin"
echo "deb http://deb.debian.org/debian sid main" >"$apt/sources.list"
opts=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
	-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Debug::NoLocking=1)
mkdir -p "$apt/cache/archives/partial"
apt-get "${opts[@]}" -q update >/dev/null

# depends PKG: the first alternative of each of PKG's dependencies.
depends() {
	apt-cache "${opts[@]}" show "$1" | awk '/^(Pre-)?Depends:/ { sub(/^[^:]*: /, ""); print }' | head -1 |
		tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/ //g' | grep -v '^$' || true
}
# Neovim, its dependencies and theirs: enough for a loader of its own.
pkgs=(neovim)
for p in $(depends neovim); do
	pkgs+=("$p")
	for q in $(depends "$p"); do pkgs+=("$q"); done
done
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
(cd "$dest/debs" && apt-get "${opts[@]}" -q download "${pkgs[@]}" >/dev/null 2>&1)
for f in "$dest"/debs/*.deb; do dpkg-deb -x "$f" "$dest/root"; done

lib=$dest/root/usr/lib/x86_64-linux-gnu
[[ -x $dest/root/usr/bin/nvim && -e $lib/ld-linux-x86-64.so.2 ]] || { echo "nvim-current: sid's neovim did not unpack as expected" >&2; exit 1; }
cat >"$wrapper" <<EOF
#!/bin/sh
# Neovim from Debian sid, unpacked by .ci/nvim-current.sh, with its own C library.
export VIMRUNTIME=$dest/root/usr/share/nvim/runtime VIM=$dest/root/usr/share/nvim
exec $lib/ld-linux-x86-64.so.2 --library-path $lib $dest/root/usr/bin/nvim "\$@"
EOF
chmod +x "$wrapper"
"$wrapper" --headless --clean +'lua if vim.fn.has("nvim-0.11") == 0 then vim.cmd("cquit 1") end' +qall >/dev/null 2>&1 ||
	{ echo "nvim-current: the unpacked Neovim does not run or is older than 0.11" >&2; exit 1; }
echo "$wrapper"
