package proposalcheck

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/stage"
)

// DefaultBudget is how long a question waits for the checks. It is short:
// every edit question waits this long at most, so a slow build shows as
// "checks: pending" and its result follows (the user may allow more with
// budget_seconds).
const DefaultBudget = 3 * time.Second

// DefaultLimit is how long the checks may run in all, the question's
// budget included; past it they are stopped ("timed out").
const DefaultLimit = 120 * time.Second

// errNoStage: the sandbox could not stage the checks, so none ran.
var errNoStage = errors.New("the sandbox cannot give the checks a copy-on-write view of the workspace here")

// sentinelExit is the exit status of a check that found itself unstaged.
const sentinelExit = 97

// Runner runs checks: the sandbox's process runner, and where stages and
// the Go build cache live.
type Runner struct {
	Exec *exec.Runner
	// StageBases are where stages are made, first usable one wins (none
	// may overlap the workspace); empty means the user's cache dir, then
	// the temp dir.
	StageBases []string
	// CacheDir is the sandbox's per-workspace Go cache root ([exec.Spec.CacheDir]).
	CacheDir string
}

// Run applies proposed (workspace-relative slash path → new content) to
// a copy-on-write view of the workspace at root and runs checks there,
// in order, for at most limit in all. A check that [Check.Builds] and
// fails stops the ones after it. The workspace is never written.
func (r *Runner) Run(ctx context.Context, root string, proposed map[string][]byte, checks []Check, limit time.Duration) *Result {
	start := time.Now()
	res := &Result{}
	defer func() { res.Took = time.Since(start) }()
	if len(checks) == 0 {
		return res
	}
	if r == nil || r.Exec == nil || !r.Exec.Layers().Has(exec.LayerStaging) {
		res.NotRun = errNoStage.Error()
		return res
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	st, sentinel, err := r.prepare(root, proposed)
	if err != nil {
		res.NotRun = err.Error()
		return res
	}
	defer st.Remove()
	outs, notStaged := r.runAll(ctx, root, st, sentinel, checks)
	if notStaged != "" {
		res.NotRun = errNoStage.Error() + " (" + notStaged + ")"
		return res
	}
	res.Outcomes = outs
	for _, o := range outs {
		if o.TimedOut {
			res.TimedOut, res.Limit = true, limit
		}
	}
	return res
}

// prepare makes a stage whose upper layer holds the proposed files and a
// sentinel file of a random name.
func (r *Runner) prepare(root string, proposed map[string][]byte) (*stage.Stage, string, error) {
	st := r.newStage(root)
	if st == nil {
		return nil, "", errNoStage
	}
	b := make([]byte, 12)
	rand.Read(b)
	sentinel := ".agentls-check-" + hex.EncodeToString(b)
	files := map[string][]byte{sentinel: nil}
	for p, data := range proposed {
		files[p] = data
	}
	for p, data := range files {
		if err := writeUpper(st.Upper, p, data); err != nil {
			st.Remove()
			return nil, "", err
		}
	}
	return st, sentinel, nil
}

// writeUpper writes one proposed file into the stage's upper layer.
func writeUpper(upper, rel string, data []byte) error {
	if !filepath.IsLocal(filepath.FromSlash(rel)) || strings.Contains(rel, "\\") {
		return fmt.Errorf("proposed path %q is not inside the workspace", rel)
	}
	p := filepath.Join(upper, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	return os.WriteFile(p, data, 0o644)
}

func (r *Runner) newStage(root string) *stage.Stage {
	bases := r.StageBases
	if len(bases) == 0 {
		if d, err := os.UserCacheDir(); err == nil {
			bases = append(bases, filepath.Join(d, "agentls", "stage"))
		}
		bases = append(bases, filepath.Join(os.TempDir(), fmt.Sprintf("agentls-stage-%d", os.Getuid())))
	}
	for _, b := range bases {
		if st, err := stage.New(b, root); err == nil {
			return st
		}
	}
	return nil
}

// runAll runs the checks in one sandboxed command on the stage (an
// overlay's upper layer cannot be mounted twice in a row), each one's
// output on stdout between markers that carry the sentinel's random name,
// so no check's output can forge them. It returns "" or why the command
// did not run staged.
func (r *Runner) runAll(ctx context.Context, root string, st *stage.Stage, sentinel string, checks []Check) ([]Outcome, string) {
	spec := &exec.Spec{Command: script(sentinel, checks), Dir: root, CacheDir: r.CacheDir,
		Stage: &exec.Overlay{Upper: st.Upper, Work: st.Work}}
	for _, c := range checks {
		spec.WarmGoCache = spec.WarmGoCache || c.Go
	}
	res, err := r.Exec.Run(ctx, spec)
	switch {
	case err != nil && ctx.Err() == nil:
		return nil, err.Error()
	case res != nil && (!res.Staged || res.StageError != ""):
		return nil, res.StageError
	}
	var stdout string
	stopped := ctx.Err() != nil
	if res != nil {
		stdout, stopped = res.Stdout, stopped || res.TimedOut || res.Canceled
	}
	outs := splitOutcomes(stdout, sentinel, root, checks)
	if stopped && len(outs) < len(checks) && (len(outs) == 0 || !outs[len(outs)-1].TimedOut) {
		outs = append(outs, Outcome{Check: checks[len(outs)], TimedOut: true})
	}
	return outs, ""
}

// script is the shell program of checks: stop at once unless staged,
// then each check with its output and exit status between markers; a
// failing check that [Check.Builds] ends it.
func script(sentinel string, checks []Check) string {
	var b strings.Builder
	fmt.Fprintf(&b, "test -e %s || exit %d\nexec 2>&1\n", sentinel, sentinelExit)
	for i, c := range checks {
		fmt.Fprintf(&b, "echo '@@%s %d start'\n( %s\n) </dev/null\nst=$?\necho; echo \"@@%s %d exit $st\"\n", sentinel, i, c.Command, sentinel, i)
		if c.Builds {
			b.WriteString("[ $st -eq 0 ] || exit 0\n")
		}
	}
	return b.String()
}

// splitOutcomes reads each check's output and status from stdout; a check
// that has a start marker but no exit marker was stopped (timed out).
func splitOutcomes(stdout, sentinel, root string, checks []Check) []Outcome {
	var outs []Outcome
	for i, c := range checks {
		startM := fmt.Sprintf("@@%s %d start\n", sentinel, i)
		j := strings.Index(stdout, startM)
		if j < 0 {
			break
		}
		body := stdout[j+len(startM):]
		o := Outcome{Check: c}
		exitM := fmt.Sprintf("\n@@%s %d exit ", sentinel, i)
		k := strings.Index(body, exitM)
		if k < 0 {
			o.TimedOut, o.Output = true, strings.TrimSpace(body)
			outs = append(outs, o)
			break
		}
		o.Output = strings.TrimSpace(body[:k])
		status := body[k+len(exitM):]
		o.OK = strings.HasPrefix(status, "0\n")
		if !o.OK {
			o.Problems = parseProblems(o.Output, root)
		}
		outs = append(outs, o)
	}
	return outs
}
