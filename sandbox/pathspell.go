package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Spellings of a path that the model means differently from what the
// system would do with them (T4): they are refused with an error that
// says how to write the path instead.

const (
	// RuleHomePath: the path starts with ~ or ~user, which names a home
	// directory to the model and a plain file name to the system; it is
	// never expanded.
	RuleHomePath = "path.home"
	// RuleSymlinkDotDot: a ".." follows a symlink in the path; the kernel
	// resolves it from the link's target, not lexically.
	RuleSymlinkDotDot = "path.symlink_dotdot"
)

// misspelled says why p (as given) or name (its decoded form) may not be
// taken as written, or returns "" for both.
func misspelled(root, p, name string) (rule, reason string) {
	if strings.HasPrefix(p, "~") {
		return RuleHomePath, "paths are relative to the workspace; ~ is not expanded, and a home directory is outside the workspace"
	}
	if DotDotAfterSymlink(root, name) {
		return RuleSymlinkDotDot, `".." after a symlink leads from the link's target, not back where the path came from`
	}
	return "", ""
}

// DotDotAfterSymlink reports whether a ".." in p (a path relative to
// root, or absolute) follows a symlink, at any depth: then the kernel
// resolves it from the link's target while a lexical clean would drop the
// link, so the two name different files. Only the path's own components
// are looked at (with Lstat), not what the links point to.
func DotDotAfterSymlink(root, p string) bool {
	if !hasDotDot(p) {
		return false
	}
	cur := root
	if filepath.IsAbs(p) {
		cur = string(filepath.Separator)
	}
	// linked[i] says component i of the lexical path is, or lies below, a symlink.
	var linked []bool
	for c := range strings.SplitSeq(p, string(filepath.Separator)) {
		switch c {
		case "", ".":
			continue
		case "..":
			if len(linked) > 0 && linked[len(linked)-1] {
				return true
			}
			if len(linked) > 0 {
				linked = linked[:len(linked)-1]
			}
			cur = filepath.Dir(cur)
			continue
		}
		cur = filepath.Join(cur, c)
		below := len(linked) > 0 && linked[len(linked)-1]
		fi, err := os.Lstat(cur)
		linked = append(linked, below || err == nil && fi.Mode()&fs.ModeSymlink != 0)
	}
	return false
}

// hasDotDot reports a ".." component in p.
func hasDotDot(p string) bool {
	for c := range strings.SplitSeq(p, string(filepath.Separator)) {
		if c == ".." {
			return true
		}
	}
	return false
}
