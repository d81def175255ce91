package lspserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// TestServer_I16_OffersOnlyUsableTools (issue 16, context diet): an execute
// run does not offer a tool that cannot be used in it, and the gateway
// answers a call to one with a structured "not offered" refusal saying
// why, without running it: sql_query without a SQLite file in the
// workspace, human_confirm when nobody answers (an unattended client, the
// ci profile), http_fetch without an allowed host.
func TestServer_I16_OffersOnlyUsableTools(t *testing.T) {
	ciPolicy := func(o *lspserver.Options) {
		o.LoadPolicy = func(string) (*tools.Policy, error) { return tools.DefaultPolicy(tools.ProfileCI), nil }
	}
	unattended := fullCaps(true)
	unattended["experimental"] = map[string]any{"agentls": map[string]any{"unattended": true}}
	sqlite := map[string]string{"a.go": "package a\n", "sub/data.sqlite3": "SQLite format 3\x00rest"}
	cases := []struct {
		name    string
		files   map[string]string
		caps    map[string]any
		opts    func(*lspserver.Options)
		call    string // the tool the model calls anyway
		args    string
		why     string // in the refusal
		offered []string
	}{
		{"sql_query/no_sqlite_file", map[string]string{"a.go": "package a\n", "fake.db": "not a database"}, fullCaps(true), nil,
			"sql_query", `{"database":"fake.db","query":"SELECT 1"}`, "no SQLite file", []string{"human_confirm"}},
		{"sql_query/offered_with_sqlite_file", sqlite, fullCaps(true), nil, "", "", "", []string{"sql_query", "human_confirm"}},
		{"human_confirm/unattended_client", sqlite, unattended, nil,
			"human_confirm", `{"question":"Push?"}`, "nobody can answer", []string{"sql_query"}},
		{"human_confirm/ci_profile", sqlite, fullCaps(true), ciPolicy,
			"human_confirm", `{"question":"Push?"}`, "nobody can answer", []string{"sql_query"}},
		{"http_fetch/empty_allowlist", sqlite, fullCaps(true), nil,
			"http_fetch", `{"url":"https://example.com/"}`, "allows no host", []string{"sql_query", "human_confirm"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			script := `{"content":"Nothing to do."}`
			if tc.call != "" {
				script = `{"tool_calls":[{"id":"c1","name":"` + tc.call + `","arguments":` + tc.args + `}]}` + "\n" + script
			}
			var asked atomic.Bool
			h := start(t, setup{script: script, files: tc.files, caps: tc.caps, opts: tc.opts})
			h.c.Handle("window/showMessageRequest", func(_ context.Context, _ json.RawMessage) (any, error) {
				asked.Store(true)
				return nil, nil
			})
			res := h.mustRun(command.Execute, map[string]any{"uri": h.uri("a.go"), "instruction": "go"})
			if res.Status != "done" {
				t.Fatalf("status %q: %s", res.Status, res.Summary)
			}
			got := h.modelRequests()[0].toolNames()
			for _, name := range []string{"sql_query", "human_confirm", "http_fetch"} {
				if want := slices.Contains(tc.offered, name); slices.Contains(got, name) != want {
					t.Errorf("%s offered = %v, want %v (offered %q)", name, !want, want, got)
				}
			}
			if tc.call == "" {
				return
			}
			var te struct{ Code, Reason, Recovery string }
			out := h.toolResult("c1")
			if err := json.Unmarshal([]byte(out), &te); err != nil || te.Code != string(tools.CodeUnavailable) ||
				!strings.Contains(te.Reason, "not offered in this run") || !strings.Contains(te.Reason, tc.why) || te.Recovery == "" {
				t.Errorf("%s result %s: want code unavailable, \"not offered in this run: …%s…\" and a recovery", tc.call, out, tc.why)
			}
			if asked.Load() {
				t.Errorf("%s: a withheld tool asked the user", tc.call)
			}
		})
	}
}
