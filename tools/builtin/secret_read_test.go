package builtin

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestReadFile_Issue10_14_SecretsAsk: read_file of a secret-looking file
// inside the workspace asks, as `cat .env` does (one list,
// sandbox.IsSecretPath); a user rule lifts it, a project rule cannot; a
// directory search does not read such files.
func TestReadFile_Issue10_14_SecretsAsk(t *testing.T) {
	h := newHarness(t)
	const token = "API_TOKEN=ghp_topsecret"
	for _, p := range []string{".env", ".ssh/id_rsa", "certs/server.pem", "tls/server.key", "keys/id_work", ".netrc", "config/.env.production"} {
		h.write(t, p, token+"\n")
	}
	h.symlink(t, "innocent.txt", ".env")
	for _, p := range []string{".env", "./.env", ".ssh/id_rsa", "certs/server.pem", "tls/server.key", "keys/id_work", ".netrc",
		"config/.env.production", "innocent.txt", ".ENV"} {
		v := newGateway(h.reg, h.env(), allTools).Vet(t.Context(), "read_file", `{"path":"`+p+`"}`)
		if p == ".ENV" { // another file on a case-sensitive disk, but named like a secret
			if v.Decision != tools.Ask {
				t.Errorf("%s: %s", p, v.Decision)
			}
			continue
		}
		if v.Decision != tools.Ask || v.Rule != "path.secret" {
			t.Errorf("read_file %s = %s (%s), want ask", p, v.Decision, v.Rule)
		}
		res := h.call(t, "read_file", map[string]string{"path": p})
		wantErr(t, res, tools.CodeApprovalRequired, "")
	}
	// The shell analyser agrees.
	if v := newGateway(h.reg, h.env(), allTools).Vet(t.Context(), "run_command", `{"command":"cat .env"}`); v.Decision != tools.Ask {
		t.Errorf("cat .env = %s (%s)", v.Decision, v.Rule)
	}
	// Ordinary files stay silent.
	wantOK(t, h.call(t, "read_file", map[string]string{"path": "README.md"}))
	// The user's rule decides.
	user := tools.DefaultPolicy(tools.ProfileEditor)
	user.Rules = []tools.Rule{mustRule(t, "read_file(.env)", tools.Allow, "user")}
	wantContains(t, wantOK(t, h.callWith(t, &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: user}, "read_file", map[string]string{"path": ".env"})), token)
	project := tools.DefaultPolicy(tools.ProfileEditor)
	project.Rules = []tools.Rule{mustRule(t, "read_file(.env)", tools.Allow, "project")}
	wantErr(t, h.callWith(t, &tools.GatewayOptions{Allowed: allTools.Allowed, Policy: project}, "read_file", map[string]string{"path": ".env"}), tools.CodeApprovalRequired, "")
	p, _ := policyFiles(t, tools.ProfileEditor, `{}`, `{"allow": ["read_file(.env)"]}`)
	if d, _ := p.Decide(&tools.Tool{Name: "read_file", Risk: tools.RiskRead}, &tools.Verdict{Decision: tools.Ask, Subject: ".env", Rule: "path.secret"}); d != tools.Ask {
		t.Errorf("project file lifted the secret ask: %s", d)
	}
	// search over a directory skips secret files and says so; searching one
	// by its path asks.
	out := wantOK(t, h.call(t, "search", map[string]string{"pattern": "ghp_", "path": "."}))
	if strings.Contains(out, "topsecret") {
		t.Errorf("search read a secret file:\n%s", out)
	}
	wantContains(t, out, "may hold credentials were not searched")
	wantErr(t, h.call(t, "search", map[string]string{"pattern": "ghp_", "path": ".env"}), tools.CodeApprovalRequired, "")
	// list_dir names files; it does not read them.
	wantOK(t, h.call(t, "list_dir", map[string]string{"path": ".ssh"}))
}
