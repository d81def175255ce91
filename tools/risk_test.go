package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
)

// riskTools registers two tools whose names say the opposite of their
// declared risk, counting their runs.
func riskTools(t *testing.T) (*Registry, map[string]*atomic.Int32) {
	t.Helper()
	runs := map[string]*atomic.Int32{"list_things": {}, "rm_rf_everything": {}}
	reg := NewRegistry()
	for name, risk := range map[string]Risk{
		"list_things":      RiskExecute, // innocuous name, runs processes
		"rm_rf_everything": RiskRead,    // scary name, only reads
	} {
		n := runs[name]
		reg.MustRegister(&Tool{Name: name, Description: "x", Risk: risk, Schema: json.RawMessage(`{"type":"object"}`),
			Run: func(context.Context, *Env, json.RawMessage) (Result, error) {
				n.Add(1)
				return Result{Content: "ran"}, nil
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
	riskRule := func(text string, d Decision) *Policy {
		p := DefaultPolicy(ProfileEditor)
		r, err := ParseRule(text, d, "user")
		if err != nil {
			t.Fatal(err)
		}
		p.Rules = append(p.Rules, r)
		return p
	}
	cases := []struct {
		name string
		opts RunnerOptions
		want map[string]Code // "" runs
	}{
		{"read-only run (E4)", RunnerOptions{Allowed: both, ReadOnly: true},
			map[string]Code{"list_things": CodeReadOnlyRun, "rm_rf_everything": ""}},
		{"read-only run, not offered", RunnerOptions{Allowed: []string{"rm_rf_everything"}, ReadOnly: true},
			map[string]Code{"list_things": CodeReadOnlyRun, "rm_rf_everything": ""}},
		{"editor defaults: execute asks, read runs", RunnerOptions{Allowed: both},
			map[string]Code{"list_things": CodeApprovalRequired, "rm_rf_everything": ""}},
		{"ci defaults: execute off (T14)", RunnerOptions{Allowed: both, Policy: DefaultPolicy(ProfileCI)},
			map[string]Code{"list_things": CodeCommandDenied, "rm_rf_everything": ""}},
		{"approved execute runs", RunnerOptions{Allowed: both, Approver: &fakeApprover{answer: AnswerApprove}},
			map[string]Code{"list_things": "", "rm_rf_everything": ""}},
		{"risk:read deny rule", RunnerOptions{Allowed: both, Policy: riskRule("risk:read", Deny), Approver: &fakeApprover{answer: AnswerApprove}},
			map[string]Code{"list_things": "", "rm_rf_everything": CodePolicyDenied}},
		{"risk:execute allow rule", RunnerOptions{Allowed: both, Policy: riskRule("risk:execute", Allow)},
			map[string]Code{"list_things": "", "rm_rf_everything": ""}},
	}
	for _, c := range cases {
		reg, runs := riskTools(t)
		var audit bytes.Buffer
		opts := c.opts
		opts.Audit = NewAuditLog(&audit)
		r := NewRunner(reg, &Env{Root: t.TempDir()}, &opts)
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
			var rec AuditRecord
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			if want := map[string]Risk{"list_things": RiskExecute, "rm_rf_everything": RiskRead}[rec.Tool]; rec.Risk != want {
				t.Errorf("%s: audit of %s has risk %q, want %q", c.name, rec.Tool, rec.Risk, want)
			}
		}
	}
}
