// Package proposalcheck runs the project's cheap checks on a proposed
// edit before the user is asked about it (E22, issue 28): the proposed
// contents are written into the upper layer of a copy-on-write view of
// the workspace (a sandbox/stage stage), never into the workspace, and the
// checks run there in the sandbox (sandbox/exec, staged, no network).
//
// [Detect] picks the checks from what the project is and which files
// change: Go (go build ./..., then go vet of the changed packages, with
// the warm Go build cache), Python (python3 -I -m compileall of the changed
// files), TypeScript (tsc --noEmit when the project has a tsconfig.json
// and a local typescript). A repository only ever gets these detected
// defaults: the commands the user adds or replaces them with, and the
// tests they enable, come from the user's own config file ([Config],
// "proposal_checks" in config.json), never from a repository file.
//
// [Run] runs checks within a budget and returns a [Result] whose
// [Result.Summary] is the line a question shows ("checks: builds; go vet
// clean", "checks: go vet: 2 problems: a.go:3: …"). [Start] runs them in
// the background: [Pending.Line] waits at most the budget, so a question
// is never delayed past it, and says "checks: pending" when they are not
// done; [Pending.Done] reports the final result later.
//
// A check never runs unstaged: the command first tests for a sentinel
// file that exists only in the stage, so where the sandbox falls back to
// running on the workspace itself the check stops before doing anything
// and the result says the checks could not run.
package proposalcheck
