package acp_test

import (
	"encoding/json"
	"os"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/tools"
)

// E21 (issue 28): ACP's one "always" button keeps the answer for the
// session, in the user's state directory: the same command again in the
// session is not asked, in a new session it is.
func TestACP_E21_AllowAlwaysIsTheSession(t *testing.T) {
	f := start(t, setup{script: `
{"tool_calls":[{"name":"run_command","arguments":{"command":"mkdir -p built"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"mkdir -p built"}}]}
{"content":"made"}
{"tool_calls":[{"name":"run_command","arguments":{"command":"mkdir -p built"}}]}
{"content":"asked"}
`})
	f.cl.answer = func(r sdk.RequestPermissionRequest) string {
		for _, o := range r.Options {
			if o.OptionId == "allow_always" {
				if o.Name != "Always allow in this session" {
					t.Errorf("allow_always is named %q", o.Name)
				}
				return "allow_always"
			}
		}
		t.Errorf("no allow_always in %v", optionIDs(r))
		return "reject_once"
	}
	f.mustPrompt(f.newSession("execute"), "make it twice", sdk.StopReasonEndTurn)
	if _, perms := f.cl.snapshot(); len(perms) != 1 {
		t.Fatalf("%d permissions, want 1: the second call is covered", len(perms))
	}
	data, err := os.ReadFile(tools.AllowStorePath(f.state))
	var file struct{ Grants []tools.Grant }
	if err != nil || json.Unmarshal(data, &file) != nil || len(file.Grants) != 1 || file.Grants[0].Scope != tools.ScopeSession {
		t.Fatalf("store = %s (%v), want one session grant", data, err)
	}
	f.cl.answer = func(sdk.RequestPermissionRequest) string { return "reject_once" }
	f.mustPrompt(f.newSession("execute"), "make it again", sdk.StopReasonEndTurn)
	if _, perms := f.cl.snapshot(); len(perms) != 2 {
		t.Errorf("%d permissions, want the new session asked", len(perms))
	}
}
