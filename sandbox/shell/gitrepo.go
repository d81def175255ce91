package shell

import (
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Read-only git and the repository's own configuration (S8). Inside the
// sandbox git reads no system or global configuration, and the runner
// forces core.fsmonitor, core.pager, core.hooksPath and credential.helper
// off on the command line; but a repository's .git/config can still name
// programs that git diff, log -p, show, blame, grep, status and go build's
// VCS stamping run: diff.external, diff.<driver>.command and .textconv,
// filter.<driver>.clean, .smudge and .process (applied to worktree files
// through .gitattributes; no flag turns them off), gpg.program (with
// log.showSignature), and the keys that let it fetch a missing object
// through a configured transport (gitfetch.go). A read-only git command
// in a repository whose configuration defines any of them asks, naming
// the key; the repository is found as git finds it (gitfind.go).

// maxGitConfig bounds the bytes read from one configuration file; a larger
// file is taken as defining a program.
const maxGitConfig = 1 << 20

// maxGitFiles bounds the configuration files looked at for one repository
// (its own, its worktree's, its submodules'); beyond it, it asks.
const maxGitFiles = 64

// gitProgram returns the first configuration key that makes git run a
// program in the repository git would find from dir (an absolute path),
// "" when there is none, or a description when the configuration cannot
// be read or followed.
func (a *analyzer) gitProgram(dir string) string {
	if a.gitRepos == nil {
		a.gitRepos = map[string]string{}
	}
	if v, ok := a.gitRepos[dir]; ok {
		return v
	}
	v := ""
	for _, r := range findRepo(dir) {
		if v = repoProgram(r.work, r.gitdir); v != "" {
			break
		}
	}
	a.gitRepos[dir] = v
	return v
}

// repoProgram scans the configuration files git reads for the repository
// (gitdir/config, the common directory's config for a linked worktree,
// config.worktree) and those of its submodules.
func repoProgram(work, gitdir string) string {
	files := []string{path.Join(gitdir, "config"), path.Join(gitdir, "config.worktree")}
	common := gitdir
	if b, err := readCapped(path.Join(gitdir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(b))
		if !path.IsAbs(c) {
			c = path.Join(gitdir, c)
		}
		common = path.Clean(c)
		files = append(files, path.Join(common, "config"))
	}
	files = append(files, submoduleConfigs(work, common)...)
	if len(files) > maxGitFiles {
		return "too many submodule configurations"
	}
	for _, f := range files {
		if k := fileProgram(f); k != "" {
			return k
		}
	}
	return ""
}

// submoduleConfigs lists the configuration files of the submodules git
// may run in: every config under the common directory's modules/, and the
// git directory of each path that .gitmodules names.
func submoduleConfigs(work, common string) []string {
	var out []string
	mods := path.Join(common, "modules")
	_ = fs.WalkDir(os.DirFS(mods), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || len(out) > maxGitFiles:
			return fs.SkipDir
		case d.IsDir() && strings.Count(p, "/") > 8:
			return fs.SkipDir
		case !d.IsDir() && d.Name() == "config":
			out = append(out, path.Join(mods, p))
		}
		return nil
	})
	if work == "" {
		return out
	}
	b, err := readCapped(path.Join(work, ".gitmodules"), maxGitConfig)
	if err != nil {
		return out
	}
	gitConfigKeys(string(b), func(key, val string) {
		if strings.HasPrefix(key, "submodule.") && strings.HasSuffix(key, ".path") && len(out) <= maxGitFiles {
			sub := path.Join(work, path.Clean("/"+val)) // kept below the worktree
			for _, r := range findRepo(sub) {
				if r.gitdir != path.Join(work, ".git") {
					out = append(out, path.Join(r.gitdir, "config"))
				}
			}
		}
	})
	return out
}

// fileProgram scans one configuration file; a missing file defines
// nothing.
func fileProgram(name string) string {
	b, err := readCapped(name, maxGitConfig+1)
	switch {
	case err != nil && os.IsNotExist(err):
		return ""
	case err != nil:
		return "an unreadable git configuration"
	case len(b) > maxGitConfig:
		return "a git configuration too large to check"
	}
	found := ""
	ok := gitConfigKeys(string(b), func(key, val string) {
		if found == "" && (gitProgramKey(key, val) || gitFetchKey(key, val)) {
			found = key
		}
	})
	if !ok && found == "" {
		return "a git configuration the analyser cannot read"
	}
	return found
}

// gitProgramKey reports a configuration key whose value is a program that
// read-only git runs, or that includes other configuration.
func gitProgramKey(key, val string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		name = rest[i+1:]
	}
	sub := rest != name
	switch section {
	case "diff":
		return name == "external" && !sub || sub && (name == "command" || name == "textconv")
	case "filter":
		return sub && (name == "clean" || name == "smudge" || name == "process") && !gitLFSFilter(val)
	case "gpg":
		return name == "program"
	case "core":
		return name == "alternaterefscommand"
	case "include", "includeif":
		return name == "path"
	}
	return false
}

// gitLFSFilter reports the filter commands Git LFS installs, which run the
// git-lfs found on PATH (where the repository cannot put one).
func gitLFSFilter(val string) bool {
	switch strings.Join(strings.Fields(val), " ") {
	case "git-lfs clean -- %f", "git-lfs smudge -- %f", "git-lfs filter-process":
		return true
	}
	return false
}

// readCapped reads at most limit bytes of a regular file, never blocking
// on a FIFO or device.
func readCapped(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// gitRepoCheck asks for a read-only git command (or a go build that
// stamps VCS information) when the repository of a working directory it
// may run in defines programs in its configuration.
func (a *analyzer) gitRepoCheck(c *call, gitDir string) {
	for _, cwd := range a.st.cwd {
		if !strings.HasPrefix(cwd, "/") {
			continue // a home or unknown directory asks already
		}
		var key string
		if gitDir != "" {
			gd := dirOf(gitDir, cwd)
			if !strings.HasPrefix(gd, "/") {
				continue
			}
			key = repoProgram("", gd)
		} else {
			key = a.gitProgram(cwd)
		}
		if key != "" {
			a.note(sandbox.Ask, "shell.git_repo_program", c.disp,
				"the repository's git configuration makes git run a program ("+key+")")
			return
		}
	}
}
