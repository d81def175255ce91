package lspserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// permissivePolicy loads a user policy that allows every tool, every risk
// and an HTTP host, so that only the mode can keep a tool away.
func permissivePolicy(t *testing.T) func(*lspserver.Options) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "policy.json")
	err := os.WriteFile(file, []byte(`{"allow": ["*"],
		"risks": {"read": "allow", "write": "allow", "execute": "allow", "network": "allow"},
		"http": {"allow": ["https://example.com"]}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return func(o *lspserver.Options) {
		o.LoadPolicy = func(string) (*tools.Policy, error) { return tools.LoadPolicy(tools.ProfileEditor, file, "") }
	}
}

// TestServer_E4_B7_ModeDecidesTools: what a run offers is its mode's
// table row, whatever the policy allows. Under a policy that allows
// everything, plan and review offer only their read tools (review adds
// report_finding), never a write, a command, the network or the agent
// tool, and the gateway refuses those when the model calls them anyway;
// execute offers its tools, http_fetch (the policy has an allowlist) and
// the agent tool (B7).
func TestServer_E4_B7_ModeDecidesTools(t *testing.T) {
	reads := []string{"read_file", "list_dir", "search"}
	cases := []struct {
		command string
		want    []string
	}{
		{command.Plan, reads},
		{command.Review, append(slices.Clone(reads), "report_finding")},
		{command.Execute, append(slices.Clone(reads), "edit_file", "write_file", "run_command",
			"human_confirm", "sql_query", "calculator", "http_fetch", "agent")},
	}
	for _, tc := range cases {
		t.Run(tc.command, func(t *testing.T) {
			script := `{"content":"Nothing to do."}`
			readOnly := tc.command != command.Execute
			if readOnly {
				script = strings.Join([]string{`{"tool_calls":[` +
					`{"id":"w1","name":"write_file","arguments":{"path":"new.go","content":"package a\n"}},` +
					`{"id":"r1","name":"run_command","arguments":{"command":"touch ran"}},` +
					`{"id":"h1","name":"http_fetch","arguments":{"url":"https://example.com/"}},` +
					`{"id":"a1","name":"agent","arguments":{"task":"write new.go"}}]}`,
					`{"content":"Done."}`}, "\n")
			}
			// data.db starts like a SQLite file, so execute offers sql_query (issue 16).
			h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n", "data.db": "SQLite format 3\x00"},
				caps: fullCaps(true), opts: permissivePolicy(t)})
			res := h.mustRun(tc.command, map[string]any{"uri": h.uri("a.go"), "instruction": "go"})
			if res.Status != "done" {
				t.Fatalf("status %q: %s", res.Status, res.Summary)
			}
			if got := h.modelRequests()[0].toolNames(); !slices.Equal(got, tc.want) {
				t.Errorf("offered %q\nwant    %q", got, tc.want)
			}
			if !readOnly {
				return
			}
			for _, id := range []string{"w1", "r1", "h1", "a1"} {
				var te struct {
					Code string `json:"code"`
				}
				out := h.toolResult(id)
				if err := json.Unmarshal([]byte(out), &te); err != nil || (te.Code != "unknown_tool" && te.Code != "read_only_run") {
					t.Errorf("tool result for %s = %s, want code unknown_tool or read_only_run", id, out)
				}
			}
			for _, name := range []string{"new.go", "ran"} {
				if _, err := os.Stat(h.path(name)); err == nil {
					t.Errorf("a %s run created %s", tc.command, name)
				}
			}
			if n := len(h.modelRequests()); n != 2 {
				t.Errorf("%d model requests; a sub-agent ran?", n)
			}
		})
	}
}

// TestServer_B7_SubAgentGetsPlanTools: in an execute run, the agent tool
// starts a sub-agent that is offered the plan tools, never the agent tool
// nor a write, even under a policy that allows everything; what it calls
// beyond them is refused, and its report reaches the parent.
func TestServer_B7_SubAgentGetsPlanTools(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"p1","name":"agent","arguments":{"task":"Find what a.go declares."}}]}`,
		`{"tool_calls":[{"id":"s1","name":"write_file","arguments":{"path":"new.go","content":"x"}},` +
			`{"id":"s2","name":"agent","arguments":{"task":"recurse"}},` +
			`{"id":"s3","name":"read_file","arguments":{"path":"a.go"}}]}`,
		`{"content":"a.go declares package a."}`,
		`{"content":"Done: package a."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": "package a\n"},
		caps: fullCaps(true), opts: permissivePolicy(t)})
	res := h.mustRun(command.Execute, map[string]any{"uri": h.uri("a.go"), "instruction": "go"})
	if res.Status != "done" {
		t.Fatalf("status %q: %s", res.Status, res.Summary)
	}
	reqs := h.modelRequests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if !slices.Contains(reqs[0].toolNames(), agent.SubAgentToolName) {
		t.Errorf("the execute run does not offer the agent tool: %q", reqs[0].toolNames())
	}
	sub := reqs[1]
	if got := sub.toolNames(); !slices.Equal(got, []string{"read_file", "list_dir", "search"}) {
		t.Errorf("sub-agent offered %q, want the plan tools", got)
	}
	if sys := sub.Messages[0].text(); !strings.Contains(sys, "cannot spawn agents") {
		t.Errorf("sub-agent prompt: %q", sys)
	}
	for id, want := range map[string]string{"s1": "unknown_tool", "s2": "unknown_tool"} {
		if out := h.toolResult(id); !strings.Contains(out, want) {
			t.Errorf("sub-agent's %s: %s, want %s", id, out, want)
		}
	}
	if out := h.toolResult("s3"); !strings.Contains(out, "package a") {
		t.Errorf("sub-agent's read_file: %s", out)
	}
	if out := h.toolResult("p1"); !strings.Contains(out, "Sub-agent report") || !strings.Contains(out, "a.go declares package a.") {
		t.Errorf("agent tool result: %s", out)
	}
	if _, err := os.Stat(h.path("new.go")); err == nil {
		t.Error("the sub-agent wrote new.go")
	}
}
