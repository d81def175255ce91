// Package shell decides, without running anything, whether a shell
// command given to run_command may run (S5): [Policy.Analyze] parses it as
// bash with mvdan.cc/sh, examines every simple command, redirection,
// assignment and substitution, looks through wrappers (bash -c, env,
// xargs, find -exec, git -c, …), resolves the paths it touches against the
// workspace as [sandbox.ResolvePath] does, and consults a table of
// commands with argument rules. The answer is a [Verdict] carrying a
// [sandbox.Decision] and the rule that decided.
//
// It owns the shell parser: it is the only agentls package that may import
// mvdan.cc/sh. It must never run anything, read the environment or read
// file contents: it looks only at the symlinks on the paths it resolves,
// at the directories its globs list, and at the git configuration of the
// repository a read-only git command would use, for the programs it
// names (S8). It decides from the parsed
// syntax tree, never from the command's text, and it imports no agentls
// package but the sandbox root.
package shell
