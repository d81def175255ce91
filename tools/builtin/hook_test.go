package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/tools"
)

// fakeHooks answers PreToolUse and PostToolUse from functions and records
// the calls it saw.
type fakeHooks struct {
	pre  func(c *tools.HookCall) tools.HookVerdict
	post func(c *tools.HookCall, res *tools.Result) tools.HookVerdict
	mu   sync.Mutex
	seen []string // "pre <input>" / "post <content>"
}

func (f *fakeHooks) PreToolUse(_ context.Context, c *tools.HookCall) tools.HookVerdict {
	f.mu.Lock()
	f.seen = append(f.seen, "pre "+string(c.Input))
	f.mu.Unlock()
	if f.pre == nil {
		return tools.HookVerdict{}
	}
	return f.pre(c)
}

func (f *fakeHooks) PostToolUse(_ context.Context, c *tools.HookCall, res *tools.Result) tools.HookVerdict {
	f.mu.Lock()
	f.seen = append(f.seen, "post "+res.Content)
	f.mu.Unlock()
	if f.post == nil {
		return tools.HookVerdict{}
	}
	return f.post(c, res)
}

func hookGateway(t *testing.T, h tools.Hooks, ap tools.Approver) (*tools.Gateway, *atomic.Int32) {
	var runs atomic.Int32
	reg := tools.NewRegistry()
	reg.MustRegister(execTool(&runs))
	return mustGateway(t, reg, &tools.GatewayOptions{Root: t.TempDir(), Approver: ap, Hooks: h, SessionID: "s1",
		Allowed: []string{"exec_thing"}}), &runs
}

// TestHooks_A13_PreToolUseBlocks: a blocking PreToolUse hook refuses the
// call before the user is asked and before it runs; its reason reaches the
// model and the hook saw the session, the tool and the parsed input.
func TestHooks_A13_PreToolUseBlocks(t *testing.T) {
	var got tools.HookCall
	h := &fakeHooks{pre: func(c *tools.HookCall) tools.HookVerdict {
		got = *c
		return tools.HookVerdict{Block: true, Reason: "no make on Fridays", Rule: "command: ./guard"}
	}}
	ap := &fakeApprover{answer: tools.AnswerApprove}
	r, runs := hookGateway(t, h, ap)
	res := call(t, r, `{"cmd":"make"}`)
	e := wantErr(t, res, tools.CodePolicyDenied, "")
	if !strings.Contains(e.Reason, "no make on Fridays") || runs.Load() != 0 || ap.asked.Load() != 0 {
		t.Errorf("reason %q, %d runs, %d questions; want the hook's reason, no run, no question", e.Reason, runs.Load(), ap.asked.Load())
	}
	if got.SessionID != "s1" || got.Tool != "exec_thing" || string(got.Input) != `{"cmd":"make"}` || got.Subject != "make" || got.Cwd == "" {
		t.Errorf("hook saw %+v", got)
	}
}

// TestHooks_A13_NeverLiftsDeny: a call the tool's check denied never
// reaches the hooks, so no hook can let it through.
func TestHooks_A13_NeverLiftsDeny(t *testing.T) {
	h := &fakeHooks{}
	r, runs := hookGateway(t, h, &fakeApprover{answer: tools.AnswerApprove})
	wantErr(t, call(t, r, `{"cmd":"rm -rf ~"}`), tools.CodeCommandDenied, "")
	if len(h.seen) != 0 || runs.Load() != 0 {
		t.Errorf("hooks saw %q, %d runs", h.seen, runs.Load())
	}
}

// TestHooks_A13_RewritePassesGatewayAgain: rewritten input is checked
// from the start: a rewrite into what the tool's check denies is denied,
// a rewrite into invalid arguments is invalid_args, a good one runs with
// the new input; a hook that rewrites forever is stopped.
func TestHooks_A13_RewritePassesGatewayAgain(t *testing.T) {
	for _, tc := range []struct {
		name, to, field string
		code            tools.Code
	}{
		{"into a denied command", `{"cmd":"rm -rf ~"}`, "", tools.CodeCommandDenied},
		{"into invalid args", `{"cmd":""}`, "cmd", tools.CodeInvalidArgs},
		{"into an unknown field", `{"cmd":"make","x":1}`, "", tools.CodeInvalidArgs},
		{"into another call", `{"cmd":"make test"}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHooks{pre: func(c *tools.HookCall) tools.HookVerdict {
				if string(c.Input) == `{"cmd":"make"}` {
					return tools.HookVerdict{UpdatedInput: json.RawMessage(tc.to)}
				}
				return tools.HookVerdict{}
			}}
			r, runs := hookGateway(t, h, &fakeApprover{answer: tools.AnswerApprove})
			res := call(t, r, `{"cmd":"make"}`)
			if tc.code != "" {
				wantErr(t, res, tc.code, tc.field)
				if runs.Load() != 0 {
					t.Errorf("ran %d times", runs.Load())
				}
				return
			}
			wantOK(t, res)
			if runs.Load() != 1 || h.seen[1] != `pre {"cmd":"make test"}` {
				t.Errorf("%d runs, hooks saw %q", runs.Load(), h.seen)
			}
		})
	}
	t.Run("forever", func(t *testing.T) {
		n := 0
		h := &fakeHooks{pre: func(c *tools.HookCall) tools.HookVerdict {
			n++
			return tools.HookVerdict{UpdatedInput: json.RawMessage(`{"cmd":"make ` + strings.Repeat("x", n) + `"}`)}
		}}
		r, runs := hookGateway(t, h, &fakeApprover{answer: tools.AnswerApprove})
		wantErr(t, call(t, r, `{"cmd":"make"}`), tools.CodePolicyDenied, "")
		if runs.Load() != 0 || n != maxHookRewrites+1 {
			t.Errorf("%d runs, %d hook calls", runs.Load(), n)
		}
	})
}

// TestHooks_A13_PostToolUse: PostToolUse sees the checked result; its
// feedback is appended, its block withholds the result; a refused call
// gets no PostToolUse.
func TestHooks_A13_PostToolUse(t *testing.T) {
	h := &fakeHooks{post: func(_ *tools.HookCall, res *tools.Result) tools.HookVerdict {
		return tools.HookVerdict{Feedback: "lint: 2 warnings"}
	}}
	r, _ := hookGateway(t, h, &fakeApprover{answer: tools.AnswerApprove})
	if res := call(t, r, `{"cmd":"make"}`); res.IsError || res.Content != "ran\n[PostToolUse hook: lint: 2 warnings]" {
		t.Errorf("feedback: %+v", res)
	}
	h.post = func(*tools.HookCall, *tools.Result) tools.HookVerdict {
		return tools.HookVerdict{Block: true, Reason: "secret in output"}
	}
	e := wantErr(t, call(t, r, `{"cmd":"make"}`), tools.CodePolicyDenied, "")
	if !strings.Contains(e.Reason, "secret in output") || strings.Contains(e.Reason, "ran") {
		t.Errorf("block: %+v", e)
	}
	h.seen = nil
	r2, _ := hookGateway(t, h, &fakeApprover{answer: tools.AnswerDeny})
	wantErr(t, call(t, r2, `{"cmd":"make"}`), tools.CodeApprovalDenied, "")
	if len(h.seen) != 1 || !strings.HasPrefix(h.seen[0], "pre ") {
		t.Errorf("a declined call reached PostToolUse: %q", h.seen)
	}
}

// maxHookRewrites is how often the gateway lets PreToolUse hooks rewrite
// one call (tools' maxHookRewrites).
const maxHookRewrites = 3
