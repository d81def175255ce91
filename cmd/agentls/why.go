package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/sandbox"
)

// whyRun is `agentls why --json`: the run and the explanations of its
// steps (all of them, or the one asked for).
type whyRun struct {
	Run         string              `json:"run"`
	Mode        string              `json:"mode"`
	Instruction string              `json:"instruction"`
	Steps       []agent.Explanation `json:"steps"`
}

// why is `agentls why RUN-ID[:STEP] [--json]` (E21, issue 28): why each
// step of a run was allowed, asked or denied — the rule, where it was
// written, who approved — as the run recorded it in its session, in the
// words of `vet` and the headless --explain ([tools.Explanation.Lines]).
func (c *cli) why(_ context.Context, name string, args []string) int {
	fs := c.flags(name)
	asJSON := fs.Bool("json", false, "print the run and its steps' explanations as one JSON object")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 1 || strings.TrimSpace(rest[0]) == "" {
		return c.badUsage(name)
	}
	runArg, stepArg, oneStep := strings.Cut(strings.TrimSpace(rest[0]), ":")
	step := 0
	if oneStep {
		n, err := strconv.Atoi(stepArg)
		if err != nil || n < 1 {
			fmt.Fprintf(c.stderr, "agentls why: %q is not a step number (want RUN-ID:N, N from 1)\n", sandbox.Visible(stepArg))
			return 2
		}
		step = n
	}
	sid, n, err := session.ParseRunID(runArg)
	if err != nil {
		return c.fail(name, err)
	}
	if n == 0 {
		return c.fail(name, fmt.Errorf("%s is a session, not a run: name one of its runs, SESSION-N (agentls sessions show %s lists them)", sid, sid))
	}
	st, err := openSessions(stateDir(c.getenv), c.stderr)
	if err != nil {
		return c.fail(name, err)
	}
	s, err := st.Inspect(sid)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return c.fail(name, fmt.Errorf("no run %s in this workspace's sessions (agentls sessions lists them)", runArg))
		}
		return c.fail(name, err)
	}
	if rec := s.Recovery(); rec != nil {
		// A damaged log: what could be read is explained, and that says so.
		fmt.Fprintf(c.stderr, "agentls: %s\n", sandbox.VisibleText(rec.String()))
	}
	var run *session.RunInfo
	for _, r := range s.Runs() {
		if r.N == n {
			run = &r
			break
		}
	}
	if run == nil {
		return c.fail(name, fmt.Errorf("session %s has no run %d (agentls sessions show %s lists its runs)", s.ID, n, s.ID))
	}
	steps := s.Steps(n)
	if step > 0 {
		i := slices.IndexFunc(steps, func(e agent.Explanation) bool { return e.Step == step })
		if i < 0 {
			return c.fail(name, fmt.Errorf("run %s has no step %d: it recorded %d", run.ID, step, len(steps)))
		}
		steps = steps[i : i+1]
	}
	if *asJSON {
		out := whyRun{Run: run.ID, Mode: run.Mode, Instruction: run.Instruction, Steps: steps}
		if out.Steps == nil {
			out.Steps = []agent.Explanation{}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return c.fail(name, err)
		}
		fmt.Fprintf(c.stdout, "%s\n", b)
		return 0
	}
	v := sandbox.Visible
	fmt.Fprintf(c.stdout, "run %s (%s): %s\n", v(run.ID), v(run.Mode), v(run.Instruction))
	if len(steps) == 0 {
		fmt.Fprintln(c.stdout, "no tool calls recorded: the run made none (or ran before agentls kept its decisions)")
		return 0
	}
	for _, e := range steps {
		fmt.Fprintf(c.stdout, "\n%s", e.String())
	}
	return 0
}
