package builtin

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools"
)

func mustGateway(t *testing.T, reg *tools.Registry, o *tools.GatewayOptions) *tools.Gateway {
	t.Helper()
	r, err := tools.NewGateway(reg, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNewGateway_E4_ReadOnly: a read-only gateway refuses writes even
// when its tool list names them, and serves reads.
func TestNewGateway_E4_ReadOnly(t *testing.T) {
	h := newHarness(t)
	r := mustGateway(t, h.reg, &tools.GatewayOptions{Root: h.root, Workspace: h.ws, Edits: h.edits,
		Allowed: writeTools, ReadOnly: true})
	for name, args := range map[string]string{
		"write_file": `{"path":"n.txt","content":"x"}`,
		"edit_file":  `{"path":"src/main.go","edits":[{"old_text":"hi","new_text":"bye"}]}`,
	} {
		res, err := r.Call(t.Context(), name, args)
		if err != nil {
			t.Fatal(err)
		}
		wantErr(t, res, tools.CodeReadOnlyRun, "")
	}
	res, err := r.Call(t.Context(), "read_file", `{"path":"src/main.go"}`)
	if err != nil {
		t.Fatal(err)
	}
	wantOK(t, res)
	if len(h.edits.changes) != 0 {
		t.Errorf("a read-only gateway proposed %d changes", len(h.edits.changes))
	}
}

// TestNewGateway_T7_OneApprover: the one Approver answers the policy's
// asks and human_confirm's questions alike.
func TestNewGateway_T7_OneApprover(t *testing.T) {
	var runs atomic.Int32
	reg := tools.NewRegistry()
	reg.MustRegister(execTool(&runs), humanConfirmTool())
	ap := &fakeApprover{answer: tools.AnswerApprove}
	r := mustGateway(t, reg, &tools.GatewayOptions{Root: t.TempDir(), Approver: ap, Allowed: []string{"exec_thing", "human_confirm"}})
	if res := call(t, r, `{"cmd":"make"}`); res.IsError || runs.Load() != 1 {
		t.Errorf("ask: %+v, %d runs", res, runs.Load())
	}
	res, err := r.Call(t.Context(), "human_confirm", `{"question":"Push now?"}`)
	if err != nil || res.Content != `{"answer":"approve"}` {
		t.Errorf("human_confirm: %+v, %v", res, err)
	}
	if ap.asked.Load() != 2 {
		t.Errorf("approver asked %d times, want 2", ap.asked.Load())
	}
}

// TestNewGateway_B4_PolicyConfiguresTools: the policy's tool settings
// reach the tools: http_fetch passes its check only under a policy with
// that host on the allowlist.
func TestNewGateway_B4_PolicyConfiguresTools(t *testing.T) {
	h := newHarness(t)
	allow := tools.DefaultPolicy(tools.ProfileEditor)
	allow.HTTP = &netguard.Policy{Allow: []string{"https://example.com"}}
	for _, tc := range []struct {
		name   string
		policy *tools.Policy
		deny   bool
	}{{"default policy", nil, true}, {"allowlist", allow, false}} {
		r := mustGateway(t, h.reg, &tools.GatewayOptions{Root: h.root, Policy: tc.policy, Allowed: []string{"http_fetch"}})
		v := r.Vet(t.Context(), "http_fetch", `{"url":"https://example.com/x"}`)
		if (v.Decision == tools.Deny) != tc.deny {
			t.Errorf("%s: %+v", tc.name, v)
		}
	}
}

// TestNewGateway_B7_RunTools: a tool of the run is offered next to the
// registry's and replaces a registry tool of its name, in this gateway
// only; an invalid one is an error.
func TestNewGateway_B7_RunTools(t *testing.T) {
	h := newHarness(t)
	mine := func(name, out string) *tools.Tool {
		return &tools.Tool{Name: name, Description: "x", Risk: tools.RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
			Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
				return tools.Result{Content: out}, nil
			}}
	}
	r := mustGateway(t, h.reg, &tools.GatewayOptions{Root: h.root, Workspace: h.ws,
		Allowed: []string{"read_file", "agent"}, Tools: []*tools.Tool{mine("agent", "sub-agent ran"), mine("read_file", "mine")}})
	for name, want := range map[string]string{"agent": "sub-agent ran", "read_file": "mine"} {
		if res, err := r.Call(t.Context(), name, `{}`); err != nil || res.Content != want {
			t.Errorf("%s: %+v, %v", name, res, err)
		}
	}
	if _, err := h.reg.Lookup("agent"); err == nil {
		t.Error("a run's tool leaked into the shared registry")
	}
	if tool, _ := h.reg.Lookup("read_file"); tool.Risk != tools.RiskRead {
		t.Error("the shared registry's read_file was replaced")
	}
	if _, err := tools.NewGateway(h.reg, &tools.GatewayOptions{Tools: []*tools.Tool{mine("Bad Name", "")}}); err == nil {
		t.Error("an invalid run tool was accepted")
	}
}

// TestRunner_B7_Subset: a subset offers only names its parent offers, and
// keeps the parent's read-only fallback.
func TestRunner_B7_Subset(t *testing.T) {
	h := newHarness(t)
	parent := mustGateway(t, h.reg, &tools.GatewayOptions{Root: h.root, Workspace: h.ws, Edits: h.edits,
		Allowed: append(slices.Clone(readTools), "write_file"), ReadOnly: true})
	sub := parent.Subset([]string{"read_file", "run_command", "write_file"})
	var names []string
	for _, tool := range sub.Tools() {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"read_file", "write_file"}) {
		t.Errorf("subset offers %q", names)
	}
	res, err := sub.Call(t.Context(), "run_command", `{"command":"ls"}`)
	if err != nil || !res.IsError || (res.Code != tools.CodeUnknownTool && res.Code != tools.CodeReadOnlyRun) {
		t.Errorf("run_command, not offered to the parent: %+v, %v", res, err)
	}
	res, err = sub.Call(t.Context(), "write_file", `{"path":"n.txt","content":"x"}`)
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, res, tools.CodeReadOnlyRun, "")
}
