package sandbox

import (
	"path"
	"strings"
)

// ControlPaths are the names of E15's control files: agentls' own
// (.agentls) and those that make an editor, a shell or git run code
// outside every sandbox layer. Each names a directory (everything beneath
// is included) or a file. This is the one list: the shell analysis, the
// tools' write policy and the process runner all use it, through
// [IsControlPath] and [MatchControlPath].
var ControlPaths = []string{
	OwnControlPath,
	".git", ".gitattributes", ".gitmodules", ".husky",
	".vscode", ".idea", ".zed", ".helix",
	".nvim.lua", ".exrc", ".envrc",
}

// OwnControlPath is agentls' own control directory (policy, audit log,
// session files), which the model never changes (E15).
const OwnControlPath = ".agentls"

// MatchControlPath reports whether the workspace-relative slash path rel
// is a control file or lies beneath one, and which entry of
// [ControlPaths] it matched. Any component counts, not only the first:
// git reads sub/.git and sub/.gitattributes, direnv sub/.envrc and an
// editor opened in sub its .vscode. rel is cleaned first ("./", "a/..")
// and names are compared case-insensitively, since a case-insensitive
// file system opens .Git for .git. A leading "/" is ignored; the caller
// has resolved rel against the workspace (symlinks included).
func MatchControlPath(rel string) (name string, ok bool) {
	rel = path.Clean("/" + strings.ReplaceAll(rel, "\\", "/"))
	for c := range strings.SplitSeq(strings.TrimPrefix(rel, "/"), "/") {
		if n, ok := ControlName(c); ok {
			return n, true
		}
	}
	return "", false
}

// IsControlPath reports whether rel is a control file or lies beneath one
// (see [MatchControlPath]).
func IsControlPath(rel string) bool {
	_, ok := MatchControlPath(rel)
	return ok
}

// ControlName reports whether the single file name base is one of
// [ControlPaths], compared case-insensitively, and returns the entry.
func ControlName(base string) (string, bool) {
	for _, n := range ControlPaths {
		if strings.EqualFold(base, n) {
			return n, true
		}
	}
	return "", false
}
