package builtin

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
)

// specRecorder is the built-in registry with run_command's Run replaced
// by one that records the exec.Spec the command would run with.
func specRecorder(t *testing.T, specs *[]*exec.Spec) *tools.Registry {
	reg := tools.NewRegistry()
	for _, tl := range All() {
		if tl.Name == "run_command" {
			tl.Run = func(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
				var a runCommandArgs
				if err := json.Unmarshal(raw, &a); err != nil {
					return tools.Result{}, err
				}
				v, err := checkRunCommand(ctx, env, &a)
				if err != nil {
					return tools.Result{}, err
				}
				*specs = append(*specs, commandSpec(env, &a, v, nil))
				return tools.Result{Content: "ran"}, nil
			}
		}
		reg.MustRegister(tl)
	}
	return reg
}

// E7, E18 (issue 24 item 7): "Always allow" runs a command exactly as
// Approve does: the call answered Always, its repetition that the
// remembered allow covers, and a call answered Approve get the same
// sandbox (the same exec.Spec: the approved command's rights, so that
// `tee test.log` may create a top-level file where nothing is staged).
func TestRunCommand_E7_AlwaysRunsAsApprove(t *testing.T) {
	const cmdline = `{"command":"go test ./... 2>&1 | tee test.log"}`
	root := t.TempDir()
	run := func(ap *fakeApprover, sess *tools.Allowances, n int) []*exec.Spec {
		var specs []*exec.Spec
		g := newGateway(specRecorder(t, &specs), &tools.Env{Root: root}, &tools.GatewayOptions{Allowed: []string{"run_command"},
			Approver: ap, Policy: tools.DefaultPolicy(tools.ProfileEditor), Allowances: sess})
		for range n {
			res, err := g.Call(t.Context(), "run_command", cmdline)
			if err != nil || res.IsError {
				t.Fatalf("run_command: %v %+v", err, res)
			}
		}
		return specs
	}
	always := &fakeApprover{answer: tools.AnswerAlways}
	got := run(always, tools.NewAllowances(), 2)
	if n := always.asked.Load(); n != 1 {
		t.Fatalf("asked %d times, want 1: the repetition is covered by the remembered allow", n)
	}
	want := run(&fakeApprover{answer: tools.AnswerApprove}, nil, 1)[0]
	if !want.UserApproved {
		t.Fatalf("an approved command runs without the approved command's rights: %+v", want)
	}
	for i, s := range got {
		if diff := cmp.Diff(want, s); diff != "" {
			t.Errorf("call %d after Always runs otherwise than after Approve (-approve +always):\n%s", i+1, diff)
		}
	}
}
