package sandbox

import (
	"path"
	"strings"
)

// controlDirs are directories whose files make an editor, a shell hook or
// git run code outside the sandbox (DESIGN E15), at any depth: a nested
// repository or a subfolder opened as its own workspace reads them too.
var controlDirs = []string{".vscode", ".idea", ".zed", ".helix", ".husky", ".git"}

// controlFiles are such files, matched by their base name at any depth.
// .nvimrc is what Neovim before 0.9 reads besides .exrc.
var controlFiles = []string{".nvim.lua", ".nvimrc", ".exrc", ".envrc", ".gitattributes", ".gitmodules"}

// ownDir is agentls' own control directory: policy, hooks, MCP servers.
const ownDir = ".agentls"

// IsControlPath reports whether rel, a workspace-relative slash path as
// [ResolvePath] returns it, is a control file (E15): control when editors,
// shells or git run what it says outside the sandbox (.vscode/**,
// .git/**, .envrc, … and agentls' own files), own when it is agentls' own
// (.agentls/** or .agentls itself), which the model may never change.
// The match is case-insensitive, because case-insensitive file systems
// (macOS, Windows) open .VSCode/settings.json as .vscode/settings.json,
// and covers every component, so a directory named .git anywhere counts.
// Resolve symlinks first: the check is on the name only.
func IsControlPath(rel string) (control, own bool) {
	rel = path.Clean(strings.TrimPrefix(rel, "/"))
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		if strings.EqualFold(part, ownDir) {
			return true, true
		}
		for _, d := range controlDirs {
			if strings.EqualFold(part, d) {
				control = true
			}
		}
		if i == len(parts)-1 {
			for _, f := range controlFiles {
				if strings.EqualFold(part, f) {
					control = true
				}
			}
		}
	}
	return control, false
}
