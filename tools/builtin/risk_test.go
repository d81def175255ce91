package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/tools"
)

// riskTools registers two tools whose names say the opposite of their
// declared risk, counting their runs.
func riskTools(t *testing.T) (*tools.Registry, map[string]*atomic.Int32) {
	t.Helper()
	runs := map[string]*atomic.Int32{"list_things": {}, "rm_rf_everything": {}}
	reg := tools.NewRegistry()
	for name, risk := range map[string]tools.Risk{
		"list_things":      tools.RiskExecute, // innocuous name, runs processes
		"rm_rf_everything": tools.RiskRead,    // scary name, only reads
	} {
		n := runs[name]
		reg.MustRegister(&tools.Tool{Name: name, Description: "x", Risk: risk, Schema: json.RawMessage(`{"type":"object"}`),
			Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
				n.Add(1)
				return tools.Result{Content: "ran"}, nil
			}})
	}
	return reg, runs
}

// TestGateway_T12_RiskFromMetadata: every risk decision of the gateway
// comes from Tool.Risk, never from the tool's name: the read-only
// fallback of a plan run (E4), the policy's risk defaults per profile
// (T5, T14), risk: rules, the code of a risk deny, and the audit record.
func TestGateway_T12_RiskFromMetadata(t *testing.T) {
	both := []string{"list_things", "rm_rf_everything"}
	riskRule := func(text string, d tools.Decision) *tools.Policy {
		p := tools.DefaultPolicy(tools.ProfileEditor)
		r, err := tools.ParseRule(text, d, "user")
		if err != nil {
			t.Fatal(err)
		}
		p.Rules = append(p.Rules, r)
		return p
	}
	cases := []struct {
		name string
		opts tools.GatewayOptions
		want map[string]tools.Code // "" runs
	}{
		{"read-only run (E4)", tools.GatewayOptions{Allowed: both, ReadOnly: true},
			map[string]tools.Code{"list_things": tools.CodeReadOnlyRun, "rm_rf_everything": ""}},
		{"read-only run, not offered", tools.GatewayOptions{Allowed: []string{"rm_rf_everything"}, ReadOnly: true},
			map[string]tools.Code{"list_things": tools.CodeReadOnlyRun, "rm_rf_everything": ""}},
		{"editor defaults: execute asks, read runs", tools.GatewayOptions{Allowed: both},
			map[string]tools.Code{"list_things": tools.CodeApprovalRequired, "rm_rf_everything": ""}},
		{"ci defaults: execute off (T14)", tools.GatewayOptions{Allowed: both, Policy: tools.DefaultPolicy(tools.ProfileCI)},
			map[string]tools.Code{"list_things": tools.CodeCommandDenied, "rm_rf_everything": ""}},
		{"approved execute runs", tools.GatewayOptions{Allowed: both, Approver: &fakeApprover{answer: tools.AnswerApprove}},
			map[string]tools.Code{"list_things": "", "rm_rf_everything": ""}},
		{"risk:read deny rule", tools.GatewayOptions{Allowed: both, Policy: riskRule("risk:read", tools.Deny), Approver: &fakeApprover{answer: tools.AnswerApprove}},
			map[string]tools.Code{"list_things": "", "rm_rf_everything": tools.CodePolicyDenied}},
		{"risk:execute allow rule", tools.GatewayOptions{Allowed: both, Policy: riskRule("risk:execute", tools.Allow)},
			map[string]tools.Code{"list_things": "", "rm_rf_everything": ""}},
	}
	for _, c := range cases {
		reg, runs := riskTools(t)
		var audit bytes.Buffer
		opts := c.opts
		opts.Audit = tools.NewAuditLog(&audit)
		r := newGateway(reg, &tools.Env{Root: t.TempDir()}, &opts)
		for _, name := range both {
			res, err := r.Call(t.Context(), name, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want[name]
			if res.Code != want {
				t.Errorf("%s: %s: code %q, want %q (%s)", c.name, name, res.Code, want, res.Content)
			}
			if ran := runs[name].Load() == 1; ran != (want == "") {
				t.Errorf("%s: %s ran = %v", c.name, name, ran)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
			var rec tools.AuditRecord
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			if want := map[string]tools.Risk{"list_things": tools.RiskExecute, "rm_rf_everything": tools.RiskRead}[rec.Tool]; rec.Risk != want {
				t.Errorf("%s: audit of %s has risk %q, want %q", c.name, rec.Tool, rec.Risk, want)
			}
		}
	}
}
