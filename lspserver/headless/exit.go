package headless

import (
	"context"
	"errors"
	"slices"

	"github.com/agentls/agentls/lspserver/command"
)

// The exit codes of a headless run (A19), as the README lists them.
const (
	// ExitDone: the run finished and everything it proposed landed.
	ExitDone = 0
	// ExitFailed: the run failed or was cancelled.
	ExitFailed = 1
	// ExitUsage: a bad command line; nothing ran.
	ExitUsage = 2
	// ExitNotLanded: the run finished, but something it proposed did not
	// land: a hunk rejected or stale, or a call denied at its question.
	ExitNotLanded = 3
	// ExitFindings: a review finished with a finding at or above
	// --fail-on.
	ExitFindings = 4
)

// Exec runs one command, prints its result (and, with SARIF, writes the
// review's log) and returns the process exit code.
func Exec(ctx context.Context, o *Options) int {
	p := newPrinter(o)
	if o.Spinner && !o.JSON {
		stop := p.startSpinner(o.Stderr)
		defer stop()
	}
	res, err := run(ctx, o, p)
	if err != nil {
		p.waitFor("")
		p.failure(err)
		if errors.Is(err, ErrUsage) {
			return ExitUsage
		}
		return ExitFailed
	}
	p.result(res)
	if o.SARIF {
		if err := writeSARIF(o.Stdout, res, o.Version); err != nil {
			p.failure(err)
			return ExitFailed
		}
	}
	return exitCode(res, o.FailOn)
}

// exitCode is the exit code of a run that returned res.
func exitCode(res *command.Result, failOn string) int {
	switch {
	case res.Status != command.StatusDone:
		return ExitFailed
	case failOn != "" && slices.ContainsFunc(res.Findings, func(f command.Finding) bool { return AtLeast(f.Severity, failOn) }):
		return ExitFindings
	case !allLanded(res):
		return ExitNotLanded
	}
	return ExitDone
}

// allLanded reports whether everything the run proposed landed: no hunk
// rejected or stale, no call denied at its question (or refused because
// its file changed).
func allLanded(res *command.Result) bool {
	if res.Edits.Rejected > 0 || res.Edits.Stale > 0 {
		return false
	}
	for _, s := range res.Steps {
		if s.Code == "approval_denied" || s.Code == "stale_file" {
			return false
		}
	}
	return true
}

// Severities are the levels of review findings, the most severe first:
// the values of --fail-on.
var Severities = []string{"error", "warning", "info", "hint"}

// AtLeast reports whether severity is failOn or more severe. An unknown
// severity counts as an error: a finding is never dropped for its label.
func AtLeast(severity, failOn string) bool {
	i := slices.Index(Severities, severity)
	if i < 0 {
		i = 0
	}
	return i <= slices.Index(Severities, failOn)
}
