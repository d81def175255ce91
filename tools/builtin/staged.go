package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/shell"
	"github.com/agentls/agentls/sandbox/stage"
	"github.com/agentls/agentls/tools"
)

// Staged execution's gateway step (S9, S10): run_command's processes
// write to a stage, and what they changed lands only after every path of
// the change set has been classified here. Held paths are put to the user
// in one question (never pre-approved, never "always"); refused ones never
// land; the model is told what landed and what did not, and why.

// StageWarning heads the question about a command's held changes.
const StageWarning = "WARNING: the command changed files that git, an editor, a shell or Python on this machine " +
	"runs or obeys outside the sandbox. Nothing of it has reached the workspace yet. Read the list before approving; " +
	"it is asked every time and cannot be allowed always."

// stageBases are where stages are made, in order of preference: the
// user's cache directory, which on most machines shares the workspace's
// file system (a merge is then a rename; elsewhere it copies), then the
// temp directories. The first that does not overlap the workspace is
// used.
func stageBases() []string {
	var out []string
	if d, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(d, "agentls", "stage"))
	}
	suffix := fmt.Sprintf("agentls-stage-%d", os.Getuid())
	return append(out, filepath.Join(os.TempDir(), suffix), filepath.Join("/var/tmp", suffix))
}

// newStage makes the stage of one command, or nil when it cannot (the
// command then runs with the unstaged protection).
func newStage(env *tools.Env) *stage.Stage {
	for _, base := range stageBases() {
		if st, err := stage.New(base, env.Root); err == nil {
			return st
		}
	}
	return nil
}

// overlay is the exec spec's view of st.
func overlay(st *stage.Stage) *exec.Overlay {
	if st == nil {
		return nil
	}
	return &exec.Overlay{Upper: st.Upper, Work: st.Work}
}

// land reads the change set of a staged command, classifies it, asks the
// user about held changes, merges what may land, and returns the account
// for the model.
func land(ctx context.Context, env *tools.Env, st *stage.Stage, command string, started time.Time) (string, []tools.FileLanded) {
	if ctx.Err() != nil {
		return "[sandbox: the run was cancelled, so none of the command's changes landed]\n", nil
	}
	set, err := stage.Read(st.Upper, env.Root, started)
	if err != nil {
		return "[sandbox: the command's changes could not be read, so none of them landed: " + err.Error() + "]\n", nil
	}
	if len(set.Changes) == 0 {
		return "", nil
	}
	held := append(slices.Clone(env.Protected), shell.GitTargets(env.Root)...)
	set.Classify(&stage.Rules{Held: held, UserApproved: env.Call.Approved(), Tracked: stage.TrackedLazy(env.Root)})
	approved := askHeld(ctx, env, command, set.Held())
	var landing []*stage.Change
	dropped := map[string]bool{}
	for _, c := range set.Changes {
		ok := c.Class == stage.Land || (c.Class == stage.Hold && approved)
		if ok && !underDropped(c.Path, dropped) {
			landing = append(landing, c)
		} else if c.Op == stage.Add && c.IsDir() {
			dropped[c.Path] = true
		}
	}
	rep, err := stage.Merge(set, landing, env.Checkpoint)
	if err != nil {
		return "[sandbox: the command's changes could not be merged, so none of them landed: " + err.Error() + "]\n", nil
	}
	return account(set, rep, approved), landedFiles(rep)
}

// landedFiles lists the files (not directories) that landed.
func landedFiles(rep *stage.Report) []tools.FileLanded {
	var out []tools.FileLanded
	for _, c := range rep.Landed {
		if !c.IsDir() || c.Op == stage.Delete {
			out = append(out, tools.FileLanded{Path: c.Path, Change: c.Op.String()})
		}
	}
	slices.SortFunc(out, func(a, b tools.FileLanded) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// underDropped reports whether p lies beneath a new directory that does
// not land.
func underDropped(p string, dropped map[string]bool) bool {
	for d := range dropped {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// askHeld asks the user once about every held change; no answer, an
// error or nobody to ask means no.
func askHeld(ctx context.Context, env *tools.Env, command string, held []*stage.Change) bool {
	if len(held) == 0 {
		return false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\nchanged paths held for your approval:\n", sandbox.Visible(cut(command, 2000)))
	for i, c := range held {
		if i == 50 {
			fmt.Fprintf(&b, "  … and %d more\n", len(held)-i)
			break
		}
		fmt.Fprintf(&b, "  %s %s%s: %s\n", c.Op, sandbox.Visible(c.Path), linkNote(c), c.Why)
	}
	ans, ok := env.Call.Ask(ctx, &tools.ApprovalRequest{Tool: "run_command", Risk: tools.RiskExecute, Subject: command,
		Preview: b.String(), Reason: "stage.held", Control: true, Warning: StageWarning})
	return ok && (ans.Answer == tools.AnswerApprove || ans.Answer == tools.AnswerAlways)
}

func linkNote(c *stage.Change) string {
	if c.Target == "" {
		return ""
	}
	return " -> " + sandbox.Visible(c.Target)
}

// account tells the model what of the command's changes landed.
func account(set *stage.Set, rep *stage.Report, approved bool) string {
	var b strings.Builder
	landed := map[*stage.Change]bool{}
	for _, c := range rep.Landed {
		landed[c] = true
	}
	lines := map[stage.Op][]string{}
	for _, c := range rep.Landed {
		if !c.IsDir() || c.Op == stage.Delete {
			lines[c.Op] = append(lines[c.Op], c.Path)
		}
	}
	for _, op := range []stage.Op{stage.Add, stage.Modify, stage.Delete} {
		if ps := lines[op]; len(ps) > 0 {
			fmt.Fprintf(&b, "[files %s: %s]\n", op, listPaths(ps))
		}
	}
	for _, c := range set.Changes {
		switch {
		case landed[c]:
		case c.Class == stage.Refuse:
			fmt.Fprintf(&b, "[not landed: %s %s: refused: %s]\n", c.Op, c.Path, c.Why)
		case c.Class == stage.Hold && !approved:
			fmt.Fprintf(&b, "[not landed: %s %s: the user did not approve it (%s)]\n", c.Op, c.Path, c.Why)
		}
	}
	for _, f := range rep.Failed {
		fmt.Fprintf(&b, "[not landed: %s %s: %v]\n", f.Change.Op, f.Change.Path, f.Err)
	}
	return b.String()
}

// listPaths joins paths, at most 20 of them.
func listPaths(ps []string) string {
	if len(ps) > 20 {
		return strings.Join(ps[:20], ", ") + fmt.Sprintf(" and %d more", len(ps)-20)
	}
	return strings.Join(ps, ", ")
}
