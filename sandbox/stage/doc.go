// Package stage is staged execution's change set (S9, S10): a command
// runs on a copy-on-write view of the workspace (an overlay whose upper
// layer is a [Stage]), and when it ends this package reads what it
// changed from the upper layer, classifies every path at any depth, and
// merges what may land into the workspace.
//
// [Read] turns the upper layer into a [Set] of [Change]s: files,
// directories and symlinks added, modified or deleted (overlayfs records
// a deletion as a 0:0 character device, a replaced directory as an opaque
// one). [Set.Classify] decides each change: refused (agentls' own
// control files, special files), held for the user (anything git, an
// editor, a shell or Python on the host would run or obey; symlinks that
// lead out or into control paths; files a trusted hook runs; a path the
// workspace changed while the command ran; a mass deletion), or merged.
// [Merge] applies the changes it is given, one file at a time, never
// following a symlink in the workspace, keeping the previous content of
// each file for the session checkpoint first.
//
// The package decides nothing about asking: the caller (the tools
// gateway) asks the user about held changes and passes the ones to land.
package stage
