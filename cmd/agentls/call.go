package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
)

// callCmd runs one tool call through the whole gateway and prints the
// structured result: for scripting and debugging tools.
func (c *cli) call(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	g := gatewayFlags(fs, c.getenv)
	approve := fs.String("approve", "never", "answer approvals: never or all")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 2 || (*approve != "never" && *approve != "all") {
		return c.badUsage(name)
	}
	root, policy, err := g.load(tools.ProfileHeadless)
	if err != nil {
		return c.fail(name, err)
	}
	ap := cliApprover{all: *approve == "all", w: c.stderr}
	procs := exec.New(&exec.Options{Helper: sandboxHelper()})
	defer procs.Close()
	// The hooks and MCP servers of the user and of the trusted project
	// (nobody is asked about the others), as in a headless run.
	x := c.startExtensions(ctx, root, c.stderr)
	defer x.Close()
	runner, err := builtinGateway(root, policy, ap, &tools.DiskProposer{Root: root}, procs, x.Hooks(), x.Tools())
	if err != nil {
		return c.fail(name, err)
	}
	res, err := runner.Call(ctx, rest[0], rest[1])
	if err != nil {
		return c.fail(name, err)
	}
	out, _ := json.Marshal(res)
	fmt.Fprintf(c.stdout, "%s\n", out)
	if res.IsError {
		return 1
	}
	return 0
}

// cliApprover answers every approval the same way and says so on stderr,
// with the control characters of the call's subject, preview or question
// made visible (T22).
type cliApprover struct {
	all bool
	w   io.Writer
}

func (a cliApprover) Approve(_ context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	what := req.Preview
	if what == "" {
		what = req.Subject
	}
	if req.Question != "" {
		what = req.Question
	}
	what = sandbox.VisibleText(what)
	if req.Control {
		fmt.Fprintf(a.w, "%s\n", sandbox.VisibleText(req.Warning))
	}
	if a.all {
		fmt.Fprintf(a.w, "approved (--approve=all): %s %s\n", sandbox.Visible(req.Tool), what)
		return tools.ApprovalResponse{Answer: tools.AnswerApprove, Text: req.Text}, nil
	}
	fmt.Fprintf(a.w, "denied (--approve=never): %s %s\n", sandbox.Visible(req.Tool), what)
	return tools.ApprovalResponse{Answer: tools.AnswerDeny}, nil
}
