package netguard

import (
	"errors"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// TestCheckURL_T20_RestrictOnlyNarrows: a project's allowlist (Restrict)
// narrows the user's (Allow) to their intersection; it never adds a host.
func TestCheckURL_T20_RestrictOnlyNarrows(t *testing.T) {
	p := &Policy{Allow: []string{"https://api.github.com", "https://pkg.go.dev"},
		Restrict: []string{"https://api.github.com/repos/*", "https://evil.example"}}
	for raw, want := range map[string]string{
		"https://api.github.com/repos/x": "",
		"https://api.github.com/users/x": RulePath,           // the user allows it, the project does not
		"https://pkg.go.dev/fmt":         RuleHostNotAllowed, // likewise
		"https://evil.example/":          RuleHostNotAllowed, // only the project lists it
	} {
		_, err := p.CheckURL(raw, "GET")
		var pe *sandbox.PolicyError
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", raw, err)
		case want != "" && (!errors.As(err, &pe) || pe.Rule != want):
			t.Errorf("%s: err = %v, want %s", raw, err, want)
		}
	}
	if err := (&Policy{Allow: []string{"https://a.example"}, Restrict: []string{"ftp://x"}}).Validate(); err == nil {
		t.Error("a Restrict entry that never matches is not reported")
	}
}
