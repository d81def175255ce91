package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/shell"
	"github.com/agentls/agentls/sandbox/stage"
	"github.com/agentls/agentls/tools"
)

// RunCommand returns the run_command tool (B2): the command is analysed
// with a real shell parser (S5), decided by policy, and run in the sandbox
// (S1-S4). Its check never runs anything, so `agentls vet` shows the
// analysis alone.
func RunCommand() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "run_command",
		Description: description("run_command"),
		Risk:        tools.RiskExecute,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["command"],
	"properties": {
		"command": {"type": "string", "minLength": 1, "maxLength": 10000},
		"timeout_ms": {"type": "integer", "minimum": 1, "maximum": 3600000}
	}
}`),
	}, checkRunCommand, runRunCommand)
}

type runCommandArgs struct {
	Command   string `json:"command"`
	TimeoutMS intArg `json:"timeout_ms,omitempty"`
}

func runRunCommand(ctx context.Context, env *tools.Env, a *runCommandArgs) (tools.Result, error) {
	c, _ := checkRunCommand(ctx, env, a) // again: Run must not trust that Check ran
	if c.Decision == tools.Deny {
		return c.Refusal("do not retry this command; find a safer way").Result(), nil
	}
	if env.Exec == nil {
		return tools.Fail(tools.CodeUnavailable, "", "running commands is not available in this run", "do without running commands"), nil
	}
	var unsaved []string
	if env.Sync != nil {
		unsaved = env.Sync(ctx)
	}
	st := newStage(env)
	defer st.Remove()
	started := time.Now()
	res, err := env.Exec.Run(ctx, commandSpec(env, a, c, st))
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Fail(tools.CodeInternal, "", "the sandbox could not start the command: "+err.Error(), ""), nil
	}
	out := formatExec(res)
	if res.StageError != "" {
		out.Content += "[sandbox: the command could not run staged, so it ran on the workspace itself, " +
			"unable to change its top level or control files]\n"
	}
	if res.Staged {
		// After the status line, so that every view of the output's head
		// shows what landed.
		acc, files := land(ctx, env, st, a.Command, started)
		first, rest, _ := strings.Cut(out.Content, "\n")
		out.Content, out.Files = first+"\n"+acc+rest, files
	}
	if len(unsaved) > 0 {
		out.Content += fmt.Sprintf("note: approved changes to %s are not saved to disk yet; the command saw the old content\n",
			strings.Join(unsaved, ", "))
	}
	return out, nil
}

// formatExec renders a command's outcome for the model: exit status, then
// stdout and stderr, each already bounded by the sandbox.
func formatExec(r *exec.Result) tools.Result {
	var b strings.Builder
	if r.HelperLost {
		b.WriteString("exit code unknown")
	} else {
		fmt.Fprintf(&b, "exit code %d", r.ExitCode)
	}
	if r.Signal != "" {
		fmt.Fprintf(&b, " (%s)", r.Signal)
	}
	fmt.Fprintf(&b, ", %s\n", r.Duration.Round(time.Millisecond))
	if r.Stdout != "" {
		b.WriteString("[stdout]\n" + strings.TrimRight(r.Stdout, "\n") + "\n")
	}
	if r.Stderr != "" {
		b.WriteString("[stderr]\n" + strings.TrimRight(r.Stderr, "\n") + "\n")
	}
	res := tools.Result{Content: b.String()}
	if !r.HelperLost {
		code := r.ExitCode
		res.ExitCode = &code
	}
	switch {
	case r.HelperLost:
		// The sandbox lost its helper mid-command (A11): the output so far
		// is kept, but whether the command finished is not known.
		res.IsError, res.Code = true, tools.CodeInternal
	case r.TimedOut:
		res.IsError, res.Code = true, tools.CodeTimeout
	case r.Canceled:
		res.IsError, res.Code = true, tools.CodeInternal
	}
	return res
}

// commandTimeout is the model's timeout capped by the policy.
func commandTimeout(env *tools.Env, ms intArg) time.Duration {
	limit := env.Limits.CommandTimeout
	if limit <= 0 {
		limit = tools.DefaultCommandTimeout
	}
	if ms > 0 && time.Duration(ms)*time.Millisecond < limit {
		return time.Duration(ms) * time.Millisecond
	}
	return limit
}

func sandboxSummary(env *tools.Env) string {
	if env.Limits.CommandNetwork {
		return "sandboxed, network on"
	}
	return "sandboxed, no network"
}

// buildsGo reports whether a command line may run the Go toolchain
// directly or through a build tool (go, gofmt, make, a script or an
// interpreter): only then is the user's Go build cache worth a layer of
// its own under the command (S11). It decides speed, never safety.
func buildsGo(cmds []shell.Command) bool {
	for _, c := range cmds {
		if c.Kind != shell.KindCommand || len(c.Argv) == 0 {
			continue
		}
		switch path.Base(c.Argv[0]) {
		case "go", "gofmt", "make", "gmake", "bash", "sh", "just", "task", "mage", "xargs", "env", "timeout", "nice":
			return true
		}
	}
	return false
}

// commandSpec is how the sandbox runs a command. A command the user
// approved runs alike whether the approval was an Approve or an earlier
// "always" (issue 24 item 7): only a policy allow runs it without the
// approved command's rights.
func commandSpec(env *tools.Env, a *runCommandArgs, c *tools.Verdict, st *stage.Stage) *exec.Spec {
	return &exec.Spec{
		Command: a.Command, Dir: env.Root, Timeout: commandTimeout(env, a.TimeoutMS),
		AllowNetwork: env.Limits.CommandNetwork, UserApproved: env.Call.Approved(), Stage: overlay(st),
		WarmGoCache: buildsGo(c.Commands),
	}
}
