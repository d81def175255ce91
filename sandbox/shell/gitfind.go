package shell

import (
	"os"
	"path"
	"strings"
)

// Repository discovery as git does it (setup.c): walking up from the
// working directory, a directory's .git is the repository when it is a
// gitfile ("gitdir: …", which git follows or fails on) or a directory
// that is a git directory (is_git_directory: a valid HEAD, and objects/
// and refs/ directories it can search, in the common directory of a
// linked worktree); a .git directory that is not one is walked past, and
// so is a directory that is not a bare repository. This check is at least
// as strict as git's: every .git directory (and every directory with a
// HEAD) it walks past is returned too, so that where it and git disagree
// the configuration git uses is still scanned (S8).

// gitRepo is a candidate repository: its worktree ("" when bare or
// skipped) and git directory.
type gitRepo struct{ work, gitdir string }

// findRepo lists the repositories whose configuration git may use from
// dir: the directories walked past, then the one git discovers, if any.
func findRepo(dir string) []gitRepo {
	var out []gitRepo
	for d := dir; ; d = path.Dir(d) {
		dotgit := path.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			switch gd, ok := readGitdirFile(dotgit); {
			case ok:
				return append(out, gitRepo{d, gd})
			case fi.IsDir() && isGitDir(dotgit):
				return append(out, gitRepo{d, dotgit})
			case fi.IsDir():
				out = append(out, gitRepo{"", dotgit})
			}
		}
		if isGitDir(d) {
			return append(out, gitRepo{"", d})
		}
		if _, err := os.Lstat(path.Join(d, "HEAD")); err == nil {
			out = append(out, gitRepo{"", d})
		}
		if d == "/" || d == "." || len(out) > maxGitFiles {
			return out
		}
	}
}

// readGitdirFile reads a "gitdir: <path>" file (worktrees, submodules).
func readGitdirFile(name string) (string, bool) {
	b, err := readCapped(name, 4096)
	if err != nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	gd := strings.TrimSpace(rest)
	if !path.IsAbs(gd) {
		gd = path.Join(path.Dir(name), gd)
	}
	return path.Clean(gd), true
}

// isGitDir reports a directory git takes for a git directory: a valid
// HEAD, and objects/ and refs/ it can search in its common directory.
func isGitDir(d string) bool {
	if !validHead(path.Join(d, "HEAD")) {
		return false
	}
	common := d
	if _, err := os.Lstat(path.Join(d, "commondir")); err == nil {
		b, err := readCapped(path.Join(d, "commondir"), 4096)
		if err != nil {
			return false
		}
		common = strings.TrimRight(string(b), "\n")
		if !path.IsAbs(common) {
			common = path.Join(d, common)
		}
	}
	return searchableDir(path.Join(common, "objects")) && searchableDir(path.Join(common, "refs"))
}

// validHead is git's validate_headref, stricter where it can be: a
// symlink into refs/, or a regular file holding "ref: refs/…" or a
// SHA-1 object name.
func validHead(name string) bool {
	fi, err := os.Lstat(name)
	switch {
	case err != nil:
		return false
	case fi.Mode()&os.ModeSymlink != 0:
		t, err := os.Readlink(name)
		return err == nil && strings.HasPrefix(t, "refs/")
	case !fi.Mode().IsRegular():
		return false
	}
	b, err := readCapped(name, 255)
	if err != nil {
		return false
	}
	s := string(b)
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		return strings.HasPrefix(strings.TrimLeft(ref, " \t\n\v\f\r"), "refs/")
	}
	if len(s) < 40 {
		return false
	}
	for i := 0; i < 40; i++ {
		if !isDigit(s[i]) && (s[i] < 'a' || s[i] > 'f') && (s[i] < 'A' || s[i] > 'F') {
			return false
		}
	}
	return true
}

// searchableDir reports a directory the user may search, as git's
// access(X_OK) checks.
func searchableDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir() && canSearch(name)
}
