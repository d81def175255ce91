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
// [IsControlPath], [MatchControlPath] and [ControlName]. .nvimrc is what
// Neovim before 0.9 reads besides .exrc.
var ControlPaths = []string{
	OwnControlPath,
	".git", ".gitattributes", ".gitmodules", ".husky",
	".vscode", ".idea", ".zed", ".helix",
	".nvim.lua", ".nvimrc", ".exrc", ".envrc",
}

// OwnControlPath is agentls' own control directory (policy, hooks, MCP
// servers, results), which the model never changes (E15).
const OwnControlPath = ".agentls"

// MatchControlPath reports whether the workspace-relative slash path rel
// is a control file or lies beneath one, and which entry of
// [ControlPaths] it matched first. Any component counts, not only the
// first: git reads sub/.git and sub/.gitattributes, direnv sub/.envrc and
// an editor opened in sub its .vscode. rel is cleaned first ("./",
// "a/..", backslashes) and names are compared case-insensitively, since a
// case-insensitive file system opens .Git for .git. A leading "/" is
// ignored; the caller has resolved rel against the workspace (symlinks
// included): the check is on the name only.
func MatchControlPath(rel string) (name string, ok bool) {
	rel = path.Clean("/" + strings.ReplaceAll(rel, "\\", "/"))
	for c := range strings.SplitSeq(strings.TrimPrefix(rel, "/"), "/") {
		if n, ok := ControlName(c); ok {
			return n, true
		}
	}
	return "", false
}

// IsControlPath reports whether rel is a control file (E15, see
// [MatchControlPath]): control when editors, shells, git or agentls act
// on what it says, own when it is agentls' own (.agentls at any depth),
// which the model may never change.
func IsControlPath(rel string) (control, own bool) {
	n, ok := MatchControlPath(rel)
	return ok, ok && n == OwnControlPath
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
