package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHooks_A13_OnFailureBlock (issue 22 item 8, A18): a hook copied from
// Claude Code with "onFailure": "block" fails closed — a command that
// fails, cannot be found, times out or prints garbage denies the call —
// on the hook or on its matcher group; "continue" and no key fail open; a
// value agentls does not know fails closed with a warning.
func TestHooks_A13_OnFailureBlock(t *testing.T) {
	for _, tc := range []struct {
		name, cmd, group, hook string
		block                  bool
		warn                   string
	}{
		{"exit 1", "exit 1", "", `"onFailure": "block"`, true, ""},
		{"missing", "/nonexistent/agentls-hook", "", `"onFailure": "block"`, true, ""},
		{"timeout", "sleep 5", "", `"onFailure": "block", "timeout": 0.2`, true, ""},
		{"garbage", "echo '{not json'", "", `"onFailure": "block"`, true, ""},
		{"on the group", "exit 1", `"onFailure": "block",`, "", true, ""},
		{"hook overrides group", "exit 1", `"onFailure": "block",`, `"onFailure": "continue"`, false, ""},
		{"continue", "exit 1", "", `"onFailure": "continue"`, false, ""},
		{"no key", "exit 1", "", "", false, ""},
		{"unknown value", "exit 1", "", `"onFailure": "deny"`, true, `onFailure "deny"`},
		{"block, hook allows", "exit 0", "", `"onFailure": "block"`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			extra := ""
			if tc.hook != "" {
				extra = ", " + tc.hook
			}
			raw := `{"PreToolUse": [{` + tc.group + `"matcher": "run_command", "hooks": [{"type": "command", "command": ` +
				mustJSON(tc.cmd) + extra + `}]}]}`
			var cfg Config
			if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
				t.Fatal(err)
			}
			s := New(&Options{User: cfg})
			v := pre(t, s, "run_command", `{"command":"rm -f a.txt"}`)
			if v.Block != tc.block {
				t.Errorf("block = %v, want %v (%+v)", v.Block, tc.block, v)
			}
			w := strings.Join(s.Warnings(), "\n")
			if tc.warn != "" && !strings.Contains(w, tc.warn) || tc.warn == "" && w != "" {
				t.Errorf("warnings %q, want %q", w, tc.warn)
			}
		})
	}
}
