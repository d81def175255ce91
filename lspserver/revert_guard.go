package lspserver

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// revertRefusal is why [revertGuard] refuses a path.
type revertRefusal struct {
	path, why string
}

func (e *revertRefusal) Error() string { return "refused: " + e.path + " " + e.why + "; not restored" }

// revertGuard checks, before a revert reads, restores or deletes rel
// (issue 21; A16, E15, S9), that the path leads where its name says and
// nowhere agentls must not write: rel must be a clean workspace-relative
// path; no component, at any depth, may be a control name (.git,
// .agentls, .vscode, ... in any letter case: [sandbox.ControlName]); and,
// looking at the disk through root without following anything, no
// component may be a symlink (the last one neither), every one above the
// last must be a directory, and the last, when it exists, a regular file
// with no other hard link. A command that replaced docs/notes with a
// symlink to ../.git after a run wrote docs/notes/HEAD must not make the
// revert delete .git/HEAD.
//
// A component that does not exist ends the walk: nothing beneath it can
// lead anywhere. The editor applies the revert later, through
// workspace/applyEdit; the caller checks again once it has, so that a
// path swapped in between is reported rather than called restored.
func revertGuard(root *sandbox.Root, rel string) error {
	refuse := func(format string, args ...any) error {
		return &revertRefusal{path: rel, why: fmt.Sprintf(format, args...)}
	}
	if rel == "" || strings.ContainsRune(rel, '\\') || path.IsAbs(rel) || path.Clean(rel) != rel || !filepath.IsLocal(rel) {
		return refuse("is not a path inside the workspace")
	}
	parts := strings.Split(rel, "/")
	for _, c := range parts {
		if name, ok := sandbox.ControlName(c); ok {
			return refuse("is a control path (%s)", name)
		}
	}
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		last := i == len(parts)-1
		fi, err := root.Lstat(sub)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return refuse("cannot be checked (%v)", err)
		case fi.Mode()&fs.ModeSymlink != 0 && last:
			return refuse("is a symlink")
		case fi.Mode()&fs.ModeSymlink != 0:
			return refuse("leads through a symlink (%s)", sub)
		case !last && !fi.IsDir():
			return refuse("leads through %s, which is not a directory", sub)
		case last && !fi.Mode().IsRegular():
			return refuse("is not a regular file")
		case last && links(fi) > 1:
			return refuse("has %d hard links; the others would change too", links(fi))
		}
	}
	return nil
}

// refusedCount is how many of fs [revertGuard] refused.
func refusedCount(fs []command.RevertedFile) int {
	n := 0
	for _, f := range fs {
		if strings.HasPrefix(f.Reason, "refused: ") {
			n++
		}
	}
	return n
}
