package builtin

import (
	"context"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools"
)

// checkHTTPFetch is the static step: the URL against the policy, no I/O.
// A GET or HEAD of a URL the allowlist admits is safe (allowed unless a
// rule or a risk default of deny says otherwise); any other method is
// confirmed by default (Ask), and a rule may lift that.
func checkHTTPFetch(_ context.Context, env *tools.Env, a *httpFetchArgs) (*tools.Verdict, error) {
	u, fail := checkFetchURL(env, a)
	if fail != nil {
		v := fetchError(fail).Verdict()
		v.Subject = "" // a refused URL has no normalized form
		return v, nil
	}
	v := &tools.Verdict{Decision: tools.Ask, Rule: "http.allowlisted", Subject: u, Preview: fetchMethod(a) + " " + u}
	if m := fetchMethod(a); m == "GET" || m == "HEAD" {
		// Issue 10 item 15: a read of a URL on the user's own allowlist is
		// the user's decision already (a project can only narrow that
		// list, T20); the risk default of ask is lifted, a deny stays.
		v.Decision, v.Safe = tools.Allow, true
	}
	return v, nil
}

// checkFetchURL returns the normalized URL the policy allows, or the
// refusal.
func checkFetchURL(env *tools.Env, a *httpFetchArgs) (string, error) {
	if env.Limits.HTTP == nil {
		return "", &sandbox.PolicyError{Rule: netguard.RuleOff, Reason: "network access is off"}
	}
	u, err := env.Limits.HTTP.CheckURL(a.URL, fetchMethod(a))
	if err != nil {
		return "", err
	}
	return u.String(), nil
}
