package stage

import (
	"io/fs"
	"strings"
)

// Op is what a change does to its path.
type Op uint8

// The operations. A type change (a file that became a directory) is a
// Delete of the old followed by an Add of the new.
const (
	Add    Op = iota + 1 // the path did not exist in the workspace
	Modify               // its content, target or permission bits changed
	Delete               // it existed and the command removed it
)

func (o Op) String() string {
	switch o {
	case Add:
		return "added"
	case Modify:
		return "changed"
	case Delete:
		return "deleted"
	}
	return "?"
}

// Class is what may happen to a change.
type Class uint8

// The classes (S10).
const (
	Land   Class = iota // lands without asking
	Hold                // lands only if the user approves it, never pre-approved
	Refuse              // never lands
)

// Change is one path the command changed.
type Change struct {
	Path string      // workspace-relative slash path
	Op   Op          //
	Type fs.FileMode // fs.ModeDir, fs.ModeSymlink or 0 (a regular file); for Delete the old type
	Perm fs.FileMode // the new permission bits (Add, Modify)
	// Target is a new symlink's target.
	Target string
	// Size is a new regular file's size.
	Size int64
	// Files counts the regular files beneath a deleted directory (itself
	// 1 for a deleted file): what a mass-deletion guard counts.
	Files int
	// Conflict: the workspace changed this path while the command ran.
	Conflict bool
	// Class and Why are set by [Set.Classify]: why the change is held or
	// refused.
	Class Class
	Why   string
}

// IsDir reports whether the change is about a directory.
func (c *Change) IsDir() bool { return c.Type == fs.ModeDir }

// Set is a command's change set, read from its stage's upper layer.
type Set struct {
	Root    string // the workspace
	Upper   string // the stage's upper layer
	Changes []*Change
}

// Held returns the changes of class Hold.
func (s *Set) Held() []*Change { return s.of(Hold) }

// Refused returns the changes of class Refuse.
func (s *Set) Refused() []*Change { return s.of(Refuse) }

func (s *Set) of(c Class) []*Change {
	var out []*Change
	for _, ch := range s.Changes {
		if ch.Class == c {
			out = append(out, ch)
		}
	}
	return out
}

// under reports whether slash path p is dir or lies beneath it.
func under(p, dir string) bool {
	return p == dir || dir == "" || strings.HasPrefix(p, dir+"/")
}
