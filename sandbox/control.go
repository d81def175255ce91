package sandbox

import "strings"

// Control files (E15): files that make agentls, an editor, a shell or git
// run code or change policy outside the sandbox.

// controlDirs are directories whose every file is a control file when
// they are the first element of a workspace path (E15).
var controlDirs = []string{".vscode", ".idea", ".zed", ".helix", ".husky", ".git"}

// controlNames are file names that are control files in any directory:
// editors read them from the directory they open (exrc), direnv from the
// one the shell enters, git from every level of the tree.
var controlNames = []string{".nvim.lua", ".nvimrc", ".exrc", ".envrc", ".gitattributes", ".gitmodules"}

// IsControlPath reports whether rel, a clean workspace-relative slash path
// as [ResolvePath] returns it, is a control file (E15): control is true
// for agentls' own files (.agentls/**; then own is true too) and for the
// editor and VCS files that run code outside the sandbox (.vscode/**,
// .idea/**, .zed/**, .helix/**, .husky/**, .git/**, and .nvim.lua,
// .nvimrc, .exrc, .envrc, .gitattributes, .gitmodules in any directory).
// A .git or .agentls directory deeper in the path (a nested repository or
// project) is a control file too, but not agentls' own.
// Names are compared without regard to case, because a case-insensitive
// file system opens .GIT/config as .git/config.
func IsControlPath(rel string) (control, own bool) {
	if rel == "" || rel == "." {
		return false, false
	}
	first, _, _ := strings.Cut(rel, "/")
	if strings.EqualFold(first, ".agentls") {
		return true, true
	}
	for _, d := range controlDirs {
		if strings.EqualFold(first, d) {
			return true, false
		}
	}
	for elem := range strings.SplitSeq(rel, "/") {
		if strings.EqualFold(elem, ".git") || strings.EqualFold(elem, ".agentls") {
			return true, false
		}
	}
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for _, n := range controlNames {
		if strings.EqualFold(base, n) {
			return true, false
		}
	}
	return false, false
}
