package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/ext"
)

// callCmd runs one tool call through the whole gateway and prints the
// structured result: for scripting and debugging tools.
func callCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	g := gatewayFlags(fs, getenv)
	approve := fs.String("approve", "never", "answer approvals: never or all")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 2 || (*approve != "never" && *approve != "all") {
		fmt.Fprintln(stderr, "usage: "+synopses["call"])
		return 2
	}
	root, policy, err := g.load(tools.ProfileHeadless)
	if err != nil {
		fmt.Fprintf(stderr, "agentls call: %s\n", sandbox.VisibleText(err.Error()))
		return 1
	}
	ap := cliApprover{all: *approve == "all", w: stderr}
	procs := exec.New(&exec.Options{Helper: sandboxHelper()})
	defer procs.Close()
	// The hooks and MCP servers of the user and of the trusted project
	// (nobody is asked about the others), as in a headless run.
	x := ext.Start(ctx, extOptions(getenv, root, warnLogger(stderr, false)))
	defer x.Close()
	runner, err := builtinGateway(root, policy, ap, &tools.DiskProposer{Root: root}, procs, x.Hooks(), x.Tools())
	if err != nil {
		fmt.Fprintf(stderr, "agentls call: %s\n", sandbox.VisibleText(err.Error()))
		return 1
	}
	res, err := runner.Call(ctx, fs.Arg(0), fs.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "agentls call: %s\n", sandbox.VisibleText(err.Error()))
		return 1
	}
	out, _ := json.Marshal(res)
	fmt.Fprintf(stdout, "%s\n", out)
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
