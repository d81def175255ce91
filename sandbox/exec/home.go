package exec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Toolchains under the home directory (S7). The command's HOME is its
// private temp dir, so the real home is invisible to it; these parts of
// it are readable and executable (never writable): every $PATH entry, the
// directories where version managers and language tools install
// themselves, and nothing that holds a secret.

// homeToolchains are the known toolchain directories, relative to the
// home directory. ~/.cargo is granted by part: its credentials.toml holds
// registry tokens. ~/go is ~/go/bin only (its src holds other projects;
// the module cache is granted on its own).
var homeToolchains = []string{
	".pyenv", ".rbenv", ".nodenv", ".goenv", ".nvm", ".volta", ".asdf", ".sdkman/candidates",
	".rustup", ".cargo/bin", ".cargo/registry", ".cargo/git", "go/bin", ".bun/bin", ".deno/bin",
	".local/bin", ".local/lib", ".local/share/pipx", ".local/share/uv", ".local/share/mise",
}

// toolchainHomes are the variables that tell a version manager's shims
// where it lives; unset, the shims would look under the command's HOME.
// The sandbox sets each to the server's value, or to the default
// directory when that exists (pyenv's and rbenv's shims set theirs
// themselves, but an explicit value does no harm).
var toolchainHomes = []struct{ name, dir string }{
	{"RUSTUP_HOME", ".rustup"}, {"PYENV_ROOT", ".pyenv"}, {"RBENV_ROOT", ".rbenv"},
	{"NODENV_ROOT", ".nodenv"}, {"GOENV_ROOT", ".goenv"}, {"VOLTA_HOME", ".volta"},
	{"ASDF_DATA_DIR", ".asdf"}, {"PYTHONUSERBASE", ".local"},
}

// homeSecrets are parts of the home directory that no toolchain root may
// be, contain or lie beneath: keys, tokens and shell history.
var homeSecrets = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
	".config/gh", ".config/hub", ".config/gcloud", ".config/git", ".config/op",
	".config/rclone", ".local/share/keyrings", ".netrc", ".npmrc", ".pypirc", ".git-credentials",
	".gitconfig", ".cargo/credentials", ".cargo/credentials.toml", ".bash_history",
	".zsh_history", ".python_history", ".psql_history", ".mysql_history",
	".node_repl_history", ".lesshst", ".viminfo",
}

// toolchainAccess is what [homeToolchainAccess] found: read roots for
// Landlock and variables for the command's environment.
type toolchainAccess struct {
	read []string
	env  [][2]string
}

// homeToolchainAccess returns the toolchain directories a command may
// read (the $PATH entries in path and the known roots under home), each
// resolved through symlinks, and the variables that point the shims at
// them. getenv reads the server's environment. A directory is refused
// when it is "/", the home directory or an ancestor of it, of the
// workspace ws or of the temp dir tmp (other projects and users' files
// would show), or when it is, contains or lies beneath a secret.
func homeToolchainAccess(home, path, ws, tmp string, getenv func(string) string) toolchainAccess {
	var a toolchainAccess
	safe := func(p string) (string, bool) {
		if !filepath.IsAbs(p) {
			return "", false
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", false
		}
		for _, q := range []string{filepath.Clean(p), r} {
			if q == "/" {
				return "", false
			}
			for _, keep := range []string{home, ws, tmp} {
				if keep != "" && within(keep, q) {
					return "", false
				}
			}
			if home != "" {
				for _, s := range homeSecrets {
					s = filepath.Join(home, s)
					if within(q, s) || within(s, q) {
						return "", false
					}
				}
			}
		}
		return r, true
	}
	add := func(p string) {
		if r, ok := safe(p); ok && !slices.Contains(a.read, r) {
			a.read = append(a.read, r)
		}
	}
	for _, p := range strings.Split(path, string(os.PathListSeparator)) {
		add(p)
	}
	if home == "" || !filepath.IsAbs(home) {
		return a
	}
	home = filepath.Clean(home)
	for _, d := range homeToolchains {
		add(filepath.Join(home, d))
	}
	for _, v := range toolchainHomes {
		dir := getenv(v.name)
		if dir == "" {
			dir = filepath.Join(home, v.dir)
		}
		grant := dir
		if v.name == "PYTHONUSERBASE" {
			grant = filepath.Join(dir, "lib") // not .local/share, which holds keyrings
		}
		if _, ok := safe(grant); !ok {
			continue
		}
		add(grant)
		a.env = append(a.env, [2]string{v.name, filepath.Clean(dir)})
	}
	return a
}

// toolchainCache keeps what [homeToolchainAccess] found, per runner, for
// the inputs it was found with, for toolchainCacheTTL: resolving every
// $PATH entry and toolchain root again for each command cost a quarter of
// a millisecond and some 150 stats (issue 16), and commands come in
// bursts. Reusing a result is safe because the directories are already
// resolved and go to Landlock as [child.Landlock.Resolved]: a directory
// swapped for a symlink since then grants nothing, and one that stays the
// same grants what it did. The time bound makes a toolchain installed or
// switched meanwhile (a new ~/.cargo/bin, nvm's current version) visible
// to the next commands within seconds, in a server that runs for days.
type toolchainCache struct {
	mu   sync.Mutex
	seen map[string]toolchainSeen
	now  func() time.Time // nil: time.Now (tests set a clock)
}

type toolchainSeen struct {
	a  toolchainAccess
	at time.Time
}

const (
	// toolchainCacheTTL is how long a result is reused.
	toolchainCacheTTL = 5 * time.Second
	// toolchainCacheMax bounds the inputs remembered (tests change HOME
	// and PATH); past it the cache starts over.
	toolchainCacheMax = 16
)

// get is homeToolchainAccess(home, path, ws, tmp, getenv), remembered.
func (c *toolchainCache) get(home, path, ws, tmp string, getenv func(string) string) toolchainAccess {
	key := []string{home, path, ws, tmp}
	for _, v := range toolchainHomes {
		key = append(key, getenv(v.name))
	}
	k := strings.Join(key, "\x00")
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	c.mu.Lock()
	e, ok := c.seen[k]
	c.mu.Unlock()
	if ok && now().Sub(e.at) < toolchainCacheTTL {
		return e.a
	}
	a := homeToolchainAccess(home, path, ws, tmp, getenv)
	c.mu.Lock()
	if c.seen == nil || len(c.seen) >= toolchainCacheMax {
		c.seen = map[string]toolchainSeen{}
	}
	c.seen[k] = toolchainSeen{a: a, at: now()}
	c.mu.Unlock()
	return a
}

// within reports whether p is dir or lies beneath it (both clean and
// absolute).
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
