package importcfg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// translate runs the Claude settings translator on data as the file of
// the user or of the project.
func translate(data []byte, project bool) *Report {
	r := &Report{Source: "claude"}
	rd := &reader{r: r, home: "/home/u"}
	shown := "settings.json"
	r.Files = append(r.Files, File{Path: shown, State: "read"})
	base := "/home/u/.claude"
	if project {
		base = "/ws"
	}
	rd.claudeSettings(data, origin{shown: shown, project: project, base: base, root: "/ws", home: "/home/u"})
	return r
}

// TestImportcfg_Issue28_ClaudeRules: each kind of Claude Code permission
// rule becomes the agentls rules of the same meaning, is honoured when
// agentls's confinement covers it already, and is ignored with why when
// it has no agentls form or would widen a project's rights.
func TestImportcfg_Issue28_ClaudeRules(t *testing.T) {
	for _, tc := range []struct {
		rule, list string
		project    bool
		status     Status
		to         []string
	}{
		{"Bash(npm run test:*)", "allow", false, Translated, []string{"allow: run_command(npm run test)", "allow: run_command(npm run test **)"}},
		{"Bash(git push:*)", "deny", true, Translated, []string{"deny: run_command(git push)", "deny: run_command(git push **)"}},
		{"Bash(rm*)", "deny", false, Translated, []string{"deny: run_command(rm**)"}},
		{"Bash", "ask", false, Translated, []string{"ask: run_command"}},
		{"Bash(ls ?)", "allow", false, Ignored, nil},
		{"Bash(curl:*)", "allow", true, Ignored, nil},
		{"Read(./.env)", "deny", false, Translated, []string{"deny: read_file(.env)"}},
		{"Read(.env)", "deny", false, Translated, []string{"deny: read_file(.env)", "deny: read_file(**/.env)"}},
		{"Read(secrets/)", "deny", false, Translated, []string{"deny: read_file(secrets/**)", "deny: read_file(**/secrets/**)"}},
		{"Read(//ws/config/**)", "deny", false, Translated, []string{"deny: read_file(config/**)"}},
		{"Read(~/.ssh/**)", "deny", false, Honoured, nil},
		{"Read(//etc/passwd)", "allow", false, Ignored, nil},
		{"Read(../other/x)", "ask", false, Honoured, nil},
		{"Read(/docs/**)", "deny", true, Translated, []string{"deny: read_file(docs/**)"}},
		{"Edit(src/**)", "allow", false, Translated, []string{"allow: edit_file(src/**)", "allow: write_file(src/**)"}},
		{"Edit(**/*.lock)", "ask", false, Translated, []string{"ask: edit_file(**/*.lock)", "ask: edit_file(*.lock)", "ask: write_file(**/*.lock)", "ask: write_file(*.lock)"}},
		{"Edit(src/[ab].go)", "deny", false, Ignored, nil},
		{"WebFetch(domain:example.com)", "allow", false, Translated, []string{"allow: http_fetch(https://example.com/**)", "http.allow: https://example.com"}},
		{"WebFetch(domain:evil.test)", "deny", false, Translated, []string{"deny: http_fetch(http*://evil.test/**)", "deny: http_fetch(http*://evil.test:**)"}},
		{"WebFetch(domain:*.example.com)", "allow", false, Ignored, nil},
		{"WebFetch(https://x)", "deny", false, Ignored, nil},
		{"mcp__github__create_issue", "ask", false, Translated, []string{"ask: mcp__github__create_issue"}},
		{"mcp__my-server__do_it", "deny", false, Translated, []string{"deny: mcp__my_server__do_it"}},
		{"mcp__github", "deny", false, Ignored, nil},
		{"WebSearch", "deny", false, Ignored, nil},
		{"Frobnicate(x)", "deny", false, Ignored, nil},
		{"Bash(unclosed", "deny", false, Ignored, nil},
		{"Grep", "deny", false, Translated, []string{"deny: search"}},
	} {
		data, _ := json.Marshal(map[string]any{"permissions": map[string]any{tc.list: []string{tc.rule}}})
		r := translate(data, tc.project)
		if len(r.Entries) != 1 {
			t.Fatalf("%s: %d entries", tc.rule, len(r.Entries))
		}
		e := r.Entries[0]
		var to []string
		for _, s := range e.To {
			to = append(to, strings.TrimPrefix(s, "policy.json "))
		}
		if e.Status != tc.status || !slices.Equal(to, tc.to) || e.Status == Ignored && e.Why == "" {
			t.Errorf("%s %s (project %v): %s %q (%s), want %s %q", tc.list, tc.rule, tc.project, e.Status, to, e.Why, tc.status, tc.to)
		}
	}
}

// TestImportcfg_Issue28_RulesMatchAsClaude: the translated rules decide
// calls as Claude Code's rule would: a prefix rule covers the bare command
// and its arguments but not a longer word; a deny on a file name covers it
// at any depth; a path rule stays in its directory.
func TestImportcfg_Issue28_RulesMatchAsClaude(t *testing.T) {
	data := []byte(`{"permissions": {"deny": ["Bash(git push:*)", "Read(.env)", "Edit(src/*.go)"]}}`)
	r := translate(data, false)
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.json")
	out, _, err := MergePolicy(nil, &r.Plan)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(policy, out, 0o600)
	p, err := tools.LoadPolicy(tools.ProfileEditor, policy, "")
	if err != nil || len(p.Warnings) > 0 {
		t.Fatalf("%v %v", err, p.Warnings)
	}
	for _, tc := range []struct {
		tool, subject string
		deny          bool
	}{
		{"run_command", "git push", true}, {"run_command", "git push origin main", true}, {"run_command", "git pushy", false},
		{"read_file", ".env", true}, {"read_file", "app/config/.env", true}, {"read_file", ".env.example", false},
		{"write_file", "src/a.go", true}, {"edit_file", "src/a.go", true}, {"edit_file", "src/sub/a.go", false},
	} {
		tool := &tools.Tool{Name: tc.tool, Risk: tools.RiskWrite}
		d, rule := p.Decide(tool, &tools.Verdict{Decision: tools.Ask, Subject: tc.subject})
		if (d == tools.Deny) != tc.deny {
			t.Errorf("%s %q: %s (%s), want deny %v", tc.tool, tc.subject, d, rule, tc.deny)
		}
	}
}

// TestImportcfg_Issue28_Merge: merging keeps what the user's files hold,
// adds each rule once, never loosens a risk, keeps a server of the same
// name and refuses a file that is not an object.
func TestImportcfg_Issue28_Merge(t *testing.T) {
	p := &Plan{Deny: []string{"read_file(.env)"}, Allow: []string{"run_command(make)"}, Risks: map[string]string{"write": "allow", "mcp": "deny"}}
	out, changes, err := MergePolicy([]byte(`{"deny": ["read_file(.env)"], "risks": {"write": "ask"}, "approval_timeout_seconds": 90}`), p)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(out, &got)
	if d := got["deny"].([]any); len(d) != 1 || got["risks"].(map[string]any)["write"] != "ask" || got["risks"].(map[string]any)["mcp"] != "deny" ||
		got["approval_timeout_seconds"] != 90.0 || len(got["allow"].([]any)) != 1 {
		t.Errorf("merged: %s", out)
	}
	if !slices.ContainsFunc(changes, func(c string) bool { return strings.Contains(c, `kept "ask"`) }) {
		t.Errorf("changes: %q", changes)
	}
	for _, bad := range []string{`[1]`, `{"deny": "x"}`, `{"risks": []}`, `{`} {
		if _, _, err := MergePolicy([]byte(bad), p); err == nil {
			t.Errorf("MergePolicy(%s): no error", bad)
		}
	}
	cp := &Plan{Model: "m2"}
	cp.server("gh", mcpServer("new"))
	out, changes, err = MergeConfig([]byte(`{"model": "m1", "mcpServers": {"gh": {"command": "old"}}}`), cp)
	if err != nil || !strings.Contains(string(out), `"m1"`) || !strings.Contains(string(out), `"old"`) || strings.Contains(string(out), `"new"`) || len(changes) != 2 {
		t.Errorf("MergeConfig: %v %s %q", err, out, changes)
	}
}

// FuzzIssue28_ClaudeSettings: whatever a settings file holds, the
// translator does not panic; a project's file never yields an allow rule,
// a hook, a server or a looser risk; every translated entry says to what
// and every ignored one why; every rule it makes parses; and a top-level
// key with a plain value is reported, not dropped.
func FuzzIssue28_ClaudeSettings(f *testing.F) {
	for _, s := range []string{
		`{"permissions": {"allow": ["Bash(npm run test:*)", "Read"], "deny": ["Read(./.env)"], "defaultMode": "acceptEdits"}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "x", "onFailure": "block"}]}]}}`,
		`{"mcpServers": {"a": {"command": "x", "env": {"K": "v"}}, "b": {"url": "https://x"}, "c": {"type": "sse"}}}`,
		`{"env": {"A": 1}, "model": 3, "permissions": [], "hooks": {"Stop": [1, {"hooks": [null]}]}}`,
		`{"permissions": {"allow": ["WebFetch(domain:*.x)", "mcp__a__b", "Edit(//ws/a)", "Bash(:*)", "Bash()"]}}`,
		`[]`, `null`, `{`, `{"a":`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, project bool) {
		r := translate(data, project)
		p := &r.Plan
		if project {
			if len(p.Allow) > 0 || len(p.Hooks) > 0 || len(p.MCPServers) > 0 || len(p.HTTPAllow) > 0 || p.ShellNetwork {
				t.Fatalf("a project's file widened: %+v", p)
			}
			for risk, d := range p.Risks {
				if d != "deny" {
					t.Fatalf("a project's file set risk %s to %s", risk, d)
				}
			}
		}
		for _, e := range r.Entries {
			if e.Status == Translated && len(e.To) == 0 || e.Status == Ignored && e.Why == "" {
				t.Fatalf("entry without its translation or reason: %+v", e)
			}
		}
		for d, list := range map[tools.Decision][]string{tools.Allow: p.Allow, tools.Ask: p.Ask, tools.Deny: p.Deny} {
			for _, rule := range list {
				if _, err := tools.ParseRule(rule, d, "user"); err != nil {
					t.Fatalf("rule %q does not parse: %v", rule, err)
				}
			}
		}
		if _, _, err := MergePolicy(nil, p); err != nil {
			t.Fatal(err)
		}
		if out, _, err := MergeConfig(nil, p); err != nil || !json.Valid(out) {
			t.Fatal(err)
		}
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil || r.Files[0].State != "read" {
			return
		}
		for k, v := range doc {
			switch v.(type) {
			case map[string]any, []any:
				continue
			}
			if !slices.ContainsFunc(r.Entries, func(e Entry) bool { return strings.HasPrefix(e.Key, keyPart(k)) }) {
				t.Fatalf("key %q dropped silently", k)
			}
		}
	})
}

func mcpServer(command string) mcp.ServerConfig { return mcp.ServerConfig{Command: command} }

// TestImportcfg_Issue28_Hooks: Claude Code hooks translate to agentls's
// hooks where agentls runs them the same way, and are ignored with why
// where it would not: an event agentls lacks, a prompt hook, a matcher
// agentls cannot compile, a SessionStart for another source; onFailure on
// the hook or its group is carried over.
func TestImportcfg_Issue28_Hooks(t *testing.T) {
	data := []byte(`{"hooks": {
	  "PreToolUse": [{"matcher": "Bash", "onFailure": "block", "hooks": [{"type": "command", "command": "a"}, {"type": "prompt", "prompt": "p"}]},
	                 {"matcher": "(", "hooks": [{"type": "command", "command": "b"}]}],
	  "SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "c"}]}, {"matcher": "startup", "hooks": [{"type": "command", "command": "d"}]}],
	  "Stop": [{"hooks": [{"type": "command", "command": "e", "timeout": 3}]}],
	  "PreCompact": [{"hooks": [{"type": "command", "command": "f"}]}]}}`)
	r := translate(data, false)
	want := map[string]Status{
		"hooks.PreToolUse[0].hooks[0]": Translated, "hooks.PreToolUse[0].hooks[1]": Ignored, "hooks.PreToolUse[1].hooks[0]": Ignored,
		"hooks.SessionStart[0].hooks[0]": Ignored, "hooks.SessionStart[1].hooks[0]": Translated, "hooks.Stop[0].hooks[0]": Translated,
		"hooks.PreCompact[0].hooks[0]": Ignored,
	}
	for _, e := range r.Entries {
		if st, ok := want[e.Key]; !ok || st != e.Status {
			t.Errorf("%s: %s (%s), want %s", e.Key, e.Status, e.Why, st)
		}
		delete(want, e.Key)
	}
	if len(want) > 0 {
		t.Errorf("not reported: %v", want)
	}
	pre := r.Plan.Hooks["PreToolUse"]
	if len(pre) != 1 || pre[0].OnFailure != "block" || pre[0].Hooks[0].Command != "a" || len(r.Plan.Hooks["SessionStart"]) != 1 || r.Plan.Hooks["Stop"][0].Hooks[0].Timeout != 3 {
		t.Errorf("plan hooks: %+v", r.Plan.Hooks)
	}
}

// FuzzIssue28_CodexConfig: whatever config.toml holds, the Codex
// translator does not panic, reports a file it cannot parse as unreadable,
// and every entry it translates says to what, every one it ignores why.
func FuzzIssue28_CodexConfig(f *testing.F) {
	for _, s := range []string{
		"model = \"gpt-5\"\n[mcp_servers.a]\ncommand = \"x\"\nargs = [1]\nenv = { A = 2 }\n",
		"model_provider = \"p\"\n[model_providers.p]\nbase_url = 3\n",
		"[sandbox_workspace_write]\nnetwork_access = \"yes\"\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n",
		"mcp_servers = 1\nsandbox_workspace_write = []\n", "[broken\n", "a = 1979-05-27T07:32:00Z\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &Report{Source: "codex"}
		rd := &reader{r: r, home: "/home/u"}
		doc, err := decodeTOML(data)
		if err != nil {
			if strings.Contains(err.Error(), string(data)) && len(data) > 8 {
				t.Fatalf("the error quotes the file: %v", err)
			}
			return
		}
		rd.codex(doc, origin{shown: "config.toml", root: "/ws", home: "/home/u"})
		for _, e := range r.Entries {
			if e.Status == Translated && len(e.To) == 0 || e.Status == Ignored && e.Why == "" {
				t.Fatalf("entry without its translation or reason: %+v", e)
			}
		}
		if _, _, err := MergeConfig(nil, &r.Plan); err != nil {
			t.Fatal(err)
		}
	})
}

// TestImportcfg_Issue28_LocalServersThroughLink: ~/.claude.json records a
// workspace by the directory Claude Code was started in; a path that
// leads to the workspace through a symlink is the same workspace, and its
// local servers are imported; another workspace's are not.
func TestImportcfg_Issue28_LocalServersThroughLink(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	link := filepath.Join(home, "proj")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"projects": map[string]any{
		link:    map[string]any{"mcpServers": map[string]any{"mine": map[string]any{"command": "m"}}},
		"/else": map[string]any{"mcpServers": map[string]any{"theirs": map[string]any{"command": "t"}}},
	}})
	os.WriteFile(filepath.Join(home, ".claude.json"), data, 0o600)
	r := Claude(Env{Home: home, Root: ws})
	if _, ok := r.Plan.MCPServers["mine"]; !ok || len(r.Plan.MCPServers) != 1 {
		t.Errorf("servers: %v; entries %+v", r.Plan.MCPServers, r.Entries)
	}
}

// TestImportcfg_Issue28_MasksCredentials: a credential in a hook's
// command, a server's arguments or URL is shown as *** in the report and
// copied as written.
func TestImportcfg_Issue28_MasksCredentials(t *testing.T) {
	data := []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl -H 'Authorization: Bearer sk-live-1' https://x?api_key=k-2&v=1"}]}]},
	  "mcpServers": {"a": {"command": "srv", "args": ["--api-key", "k-3", "--token=k-4", "--port", "8"]}, "b": {"url": "https://h/mcp?token=k-5"}}}`)
	r := translate(data, false)
	raw, _ := json.Marshal(r.Entries)
	for _, secret := range []string{"sk-live-1", "k-2", "k-3", "k-4", "k-5"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the report shows %s: %s", secret, raw)
		}
	}
	if !strings.Contains(string(raw), "--port 8") || r.Plan.MCPServers["a"].Args[1] != "k-3" {
		t.Errorf("masked too much, or the plan lost the value: %s %+v", raw, r.Plan.MCPServers["a"])
	}
}
