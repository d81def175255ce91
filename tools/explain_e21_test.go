package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplain_Issue28_Origins (E21): a rule of a profile section is
// explained with its file, line and profile; a risk default set by a
// policy file's "risks" is told apart from the built-in one; the audit's
// sentence never holds the subject.
func TestExplain_Issue28_Origins(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policy.json")
	text := "{\n" +
		"  \"risks\": {\"execute\": \"allow\"},\n" +
		"  \"profiles\": {\"ci\": {\n" +
		"    \"ask\": [\"thing(secret *)\"]\n" +
		"  }}\n" +
		"}\n"
	if err := os.WriteFile(user, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(ProfileCI, user, "")
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	reg.MustRegister(&Tool{Name: "thing", Description: "x", Risk: RiskExecute,
		Schema: json.RawMessage(`{"type":"object","properties":{"what":{"type":"string"}}}`),
		Check: func(_ context.Context, _ *Env, raw json.RawMessage) (*Verdict, error) {
			var a struct{ What string }
			_ = json.Unmarshal(raw, &a)
			d := Ask
			if a.What == "plain" {
				d = Allow
			}
			return &Verdict{Decision: d, Rule: "thing.check", Subject: a.What}, nil
		},
		Run: func(context.Context, *Env, json.RawMessage) (Result, error) { return Result{Content: "ok"}, nil }})
	g := newGateway(reg, &Env{Root: dir}, &gatewayConfig{Allowed: []string{"thing"}, Policy: p})

	v, e := g.VetExplain(t.Context(), "thing", `{"what":"secret stuff"}`)
	if v.Decision != Ask || e.Source != SourceProfile || e.Origin != user+":4 (profile ci)" || e.Rule != "thing(secret *)" ||
		e.Because != `asked because the policy rule ask thing(secret *), written at `+user+`:4 (profile ci), matches "secret stuff"` {
		t.Errorf("profile rule: %+v", e)
	}
	if strings.Contains(e.String(), "[profile ci]") {
		t.Errorf("the profile said twice:\n%s", e)
	}
	if strings.Contains(e.audit, "secret stuff") || !strings.Contains(e.audit, "matches the thing call") {
		t.Errorf("audit sentence: %q", e.audit)
	}

	v, e = g.VetExplain(t.Context(), "thing", `{"what":"plain"}`)
	if v.Decision != Allow || e.Source != SourceRiskDefault || e.Origin != `the "risks" setting of a policy file (profile ci)` ||
		!strings.HasPrefix(e.Because, "allowed because thing has risk execute, no policy rule matches \"plain\"") {
		t.Errorf("a risk default from the user's file: %v %+v", v.Decision, e)
	}
}
