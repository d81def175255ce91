package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// importEnv is a temporary HOME and workspace for `agentls import`.
type importEnv struct {
	home, ws string
	env      map[string]string
}

func newImportEnv(t *testing.T) *importEnv {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	return &importEnv{home: home, ws: ws, env: map[string]string{"HOME": home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, "state")}}
}

func (e *importEnv) file(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs `agentls ARGS` in e and returns the exit code and streams.
func (e *importEnv) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(stdin), &out, &errb, func(k string) string { return e.env[k] })
	return code, out.String(), errb.String()
}

type importJSON struct {
	Files []struct {
		Path, State, Error string
	} `json:"files"`
	Entries []struct {
		File, Key, Value, Status, Why string
		To                            []string
	} `json:"entries"`
	Result *struct{ Written, Changes []string } `json:"result"`
	Error  string                               `json:"error"`
}

func (e *importEnv) report(t *testing.T, args ...string) (importJSON, int, string) {
	t.Helper()
	code, out, errs := e.run(t, "", append([]string{"import"}, append(args, "--json", "--root", e.ws)...)...)
	var r importJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("import %v: exit %d, not JSON: %v\n%s\n%s", args, code, err, out, errs)
	}
	return r, code, errs
}

// entry finds the entry of file and key.
func (r *importJSON) entry(t *testing.T, file, key string) (status string, to []string, why string) {
	t.Helper()
	for _, e := range r.Entries {
		if e.File == file && e.Key == key {
			return e.Status, e.To, e.Why
		}
	}
	t.Errorf("no entry %s %s in the report", file, key)
	return "", nil, ""
}

const claudeUserSettings = `{
  "permissions": {
    "allow": ["Bash(npm run test:*)", "WebFetch(domain:example.com)", "mcp__github__get_issue"],
    "deny": ["Read(./.env)", "Read(~/.ssh/**)", "Bash(git push:*)", "WebSearch"],
    "ask": ["Edit(src/**)"],
    "defaultMode": "bypassPermissions",
    "additionalDirectories": ["../docs"]
  },
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2", "timeout": 5, "onFailure": "block"}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
  },
  "mcpServers": {"files": {"command": "mcp-files", "args": ["--ro"], "env": {"TOKEN": "s3cret-value"}}},
  "env": {"API_TOKEN": "another-s3cret"},
  "model": "opus",
  "statusLine": {"type": "command", "command": "x"}
}`

// TestImport_Issue28_ClaudeReportsEveryEntry: `agentls import claude` on
// Claude Code settings with permissions, hooks (one with onFailure) and
// mcpServers reports every entry — rules, mode, directories, each hook,
// each server, env, model and an unknown key — with its status and why,
// never a secret's value, and writes nothing without --write.
func TestImport_Issue28_ClaudeReportsEveryEntry(t *testing.T) {
	e := newImportEnv(t)
	e.file(t, e.home, ".claude/settings.json", claudeUserSettings)
	e.file(t, e.home, ".claude.json", `{"numStartups": 4, "mcpServers": {"github": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer tok-s3cret"}}},
	  "projects": {`+mustJSON(t, e.ws)+`: {"mcpServers": {"db": {"command": "mcp-db"}}}, "/elsewhere": {}}}`)
	r, code, errs := e.report(t, "claude")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	const user = "~/.claude/settings.json"
	want := map[string]string{
		"permissions.allow[0]": "translated", "permissions.allow[1]": "translated", "permissions.allow[2]": "translated",
		"permissions.deny[0]": "translated", "permissions.deny[1]": "honoured", "permissions.deny[2]": "translated",
		"permissions.deny[3]": "ignored", "permissions.ask[0]": "translated",
		"permissions.defaultMode": "ignored", "permissions.additionalDirectories[0]": "ignored",
		"hooks.PreToolUse[0].hooks[0]": "translated", "hooks.Notification[0].hooks[0]": "ignored",
		"mcpServers.files": "translated", "env.API_TOKEN": "ignored", "model": "ignored", "statusLine": "ignored",
	}
	for key, st := range want {
		if got, _, why := r.entry(t, user, key); got != st || got == "ignored" && why == "" {
			t.Errorf("%s: %s (%q), want %s with a reason", key, got, why, st)
		}
	}
	if n := len(r.Entries); n < len(want) {
		t.Errorf("%d entries, want at least %d", n, len(want))
	}
	_, to, _ := r.entry(t, user, "permissions.allow[0]")
	if !slices.Contains(to, "policy.json allow: run_command(npm run test **)") {
		t.Errorf("Bash(npm run test:*) → %q", to)
	}
	_, to, why := r.entry(t, user, "hooks.PreToolUse[0].hooks[0]")
	if len(to) != 1 || !strings.Contains(to[0], `onFailure "block"`) || !strings.Contains(why, "exit 2 blocks") {
		t.Errorf("hook → %q (%s)", to, why)
	}
	if _, _, why := r.entry(t, user, "permissions.defaultMode"); !strings.Contains(why, "never imported") {
		t.Errorf("bypassPermissions: %q", why)
	}
	st, _, _ := r.entry(t, "~/.claude.json", "mcpServers.github")
	st2, _, why2 := r.entry(t, "~/.claude.json", "projects."+quoteKey(e.ws)+".mcpServers.db")
	if st != "translated" || st2 != "translated" || !strings.Contains(why2, "every workspace") {
		t.Errorf("~/.claude.json servers: %s, %s (%s)", st, st2, why2)
	}
	if st, _, _ := r.entry(t, "~/.claude.json", "(1 other keys)"); st != "ignored" {
		t.Errorf("~/.claude.json's other keys: %s", st)
	}
	raw, _ := json.Marshal(r)
	for _, secret := range []string{"s3cret-value", "another-s3cret", "tok-s3cret"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the report shows the secret %q", secret)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, ".config")); err == nil {
		t.Error("import without --write created the config directory")
	}
	// The text report says the same, one line per entry.
	code, out, _ := e.run(t, "", "import", "claude", "--root", e.ws)
	if code != 0 || !strings.Contains(out, "honoured    permissions.deny[1]") || !strings.Contains(out, "Nothing written") {
		t.Errorf("text report: exit %d\n%s", code, out)
	}
}

// quoteKey is a report's key part for a key with dots or slashes.
func quoteKey(k string) string {
	if strings.ContainsAny(k, ".[] \"") {
		b, _ := json.Marshal(k)
		return string(b)
	}
	return k
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImport_Issue28_ProjectAllowNotImported: a repository's own
// .claude/settings.json cannot widen its rights: its allow rules, its
// acceptEdits mode, hooks and .mcp.json servers are reported ignored and
// never written; its deny rules narrow and are imported.
func TestImport_Issue28_ProjectAllowNotImported(t *testing.T) {
	e := newImportEnv(t)
	e.file(t, e.ws, ".claude/settings.json", `{"permissions": {"allow": ["Bash(curl:*)", "Read"], "deny": ["Bash(make deploy)"], "defaultMode": "acceptEdits"},
	  "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./evil.sh"}]}]}}`)
	e.file(t, e.ws, ".claude/settings.local.json", `{"permissions": {"allow": ["Bash"]}}`)
	e.file(t, e.ws, ".mcp.json", `{"mcpServers": {"evil": {"command": "./evil-server"}}}`)
	r, code, errs := e.report(t, "claude", "--write")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, errs, r.Error)
	}
	const proj = ".claude/settings.json (project)"
	for _, key := range []string{"permissions.allow[0]", "permissions.allow[1]", "permissions.defaultMode", "hooks.PreToolUse[0].hooks[0]"} {
		if st, _, why := r.entry(t, proj, key); st != "ignored" || why == "" {
			t.Errorf("project %s: %s (%s), want ignored", key, st, why)
		}
	}
	if st, _, _ := r.entry(t, ".claude/settings.local.json (project)", "permissions.allow[0]"); st != "ignored" {
		t.Errorf("settings.local.json allow: %s", st)
	}
	if st, _, _ := r.entry(t, ".mcp.json (project)", "mcpServers.evil"); st != "ignored" {
		t.Errorf(".mcp.json server: %s", st)
	}
	if st, _, _ := r.entry(t, proj, "permissions.deny[0]"); st != "translated" {
		t.Errorf("project deny: %s, want translated", st)
	}
	policy, _ := os.ReadFile(filepath.Join(e.home, ".config/agentls/policy.json"))
	if !strings.Contains(string(policy), "run_command(make deploy)") {
		t.Errorf("policy.json lacks the project's deny:\n%s", policy)
	}
	for _, bad := range []string{"curl", "read_file", `"allow"`, "risks"} {
		if strings.Contains(string(policy), bad) {
			t.Errorf("policy.json has %s from the project:\n%s", bad, policy)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, ".config/agentls/config.json")); err == nil {
		t.Error("config.json written: a project's hook or server was imported")
	}
	// And the run agrees: curl is still asked about; the deny denies.
	_, out, _ := e.run(t, `{"tool":"run_command","args":{"command":"curl https://example.com"}}
{"tool":"run_command","args":{"command":"make deploy"}}
`, "vet", "--root", e.ws)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], `"decision":"allow"`) || !strings.Contains(lines[1], `"decision":"deny"`) {
		t.Errorf("vet after import:\n%s", out)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.ws, ".agentls")); len(entries) > 0 {
		t.Error("import wrote into the project")
	}
}

// TestImport_Issue28_WriteTakesEffect: --write puts the translation in the
// user's policy.json and config.json, which agentls's own loaders read:
// the imported deny denies a call in `agentls vet`, the imported allow
// allows one, the hook and server are in the config; a second import
// changes nothing; what the files had stays.
func TestImport_Issue28_WriteTakesEffect(t *testing.T) {
	e := newImportEnv(t)
	e.file(t, e.home, ".claude/settings.json", claudeUserSettings)
	e.file(t, e.home, ".config/agentls/policy.json", `{"deny": ["run_command(rm -rf *)"], "approval_timeout_seconds": 120}`)
	e.file(t, e.home, ".config/agentls/config.json", `{"model": "qwen3", "max_turns": 7}`)
	vet := `{"tool":"read_file","args":{"path":".env"}}
{"tool":"run_command","args":{"command":"npm run test -- --watch=false"}}
{"tool":"run_command","args":{"command":"git push origin main"}}
`
	_, before, _ := e.run(t, vet, "vet", "--root", e.ws)
	if strings.Count(before, `"decision":"deny"`) != 0 {
		t.Fatalf("vet before the import already denies:\n%s", before)
	}
	r, code, errs := e.report(t, "claude", "--write")
	if code != 0 || r.Result == nil || len(r.Result.Written) != 2 {
		t.Fatalf("exit %d, result %+v: %s %s", code, r.Result, errs, r.Error)
	}
	code, out, errs := e.run(t, vet, "vet", "--root", e.ws)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("vet: exit %d\n%s\n%s", code, out, errs)
	}
	for i, want := range []string{`"decision":"deny","code":"policy_denied","reason":"denied by policy","rule":"policy: read_file(.env)"`,
		`"decision":"allow"`, `"rule":"policy: run_command(git push **)"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("vet line %d: %s\nwant %s", i+1, lines[i], want)
		}
	}
	u, err := loadUserConfig(func(k string) string { return e.env[k] })
	if err != nil {
		t.Fatalf("agentls's loader refuses the written config.json: %v", err)
	}
	if u.Model.Model != "qwen3" || u.Model.MaxTurns != 7 || len(u.Ext.Hooks["PreToolUse"]) != 1 || u.Ext.MCPServers["files"].Command != "mcp-files" ||
		u.Ext.MCPServers["files"].Env["TOKEN"] != "s3cret-value" || len(u.Ext.Warnings) != 0 {
		t.Errorf("config.json as loaded: %+v %+v", u.Model, u.Ext)
	}
	if g := u.Ext.Hooks["PreToolUse"][0]; g.Matcher != "Bash" || g.Hooks[0].OnFailure != "block" || g.Hooks[0].Timeout != 5 {
		t.Errorf("hook as loaded: %+v", g)
	}
	policy, _ := os.ReadFile(filepath.Join(e.home, ".config/agentls/policy.json"))
	if !strings.Contains(string(policy), "run_command(rm -rf *)") || !strings.Contains(string(policy), `"approval_timeout_seconds": 120`) {
		t.Errorf("the existing policy was not kept:\n%s", policy)
	}
	// Again: nothing to add.
	r, code, _ = e.report(t, "claude", "--write")
	if code != 0 || r.Result == nil || len(r.Result.Written) != 0 {
		t.Errorf("second import: exit %d, %+v", code, r.Result)
	}
}

const codexConfig = `model = "gpt-5"
model_provider = "local"
approval_policy = "never"
sandbox_mode = "workspace-write"
model_reasoning_effort = "high"

[model_providers.local]
name = "Local"
base_url = "http://127.0.0.1:8080/v1"
env_key = "LOCAL_KEY"

[model_providers.other]
base_url = "https://other.example/v1"

[sandbox_workspace_write]
network_access = true
writable_roots = ["/tmp/x"]

[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]
env = { DOCS_TOKEN = "codex-s3cret" }
startup_timeout_sec = 20

[mcp_servers.broken]
command = 42

[projects."/home/u/proj"]
trust_level = "trusted"
`

// TestImport_Issue28_Codex: `agentls import codex` reads config.toml:
// the model and the selected provider's endpoint, network for commands and
// MCP servers translate; "never" asking is never imported; a server of
// the wrong shape, a blanket trust and unknown keys are ignored with why;
// --write gives a config agentls loads.
func TestImport_Issue28_Codex(t *testing.T) {
	e := newImportEnv(t)
	e.file(t, e.home, ".codex/config.toml", codexConfig)
	r, code, errs := e.report(t, "codex", "--write")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, errs, r.Error)
	}
	const f = "~/.codex/config.toml"
	for key, want := range map[string]string{
		"model": "translated", "model_providers.local": "translated", "approval_policy": "ignored", "sandbox_mode": "honoured",
		"model_reasoning_effort": "ignored", "model_providers.other": "ignored", "sandbox_workspace_write.network_access": "translated",
		"sandbox_workspace_write.writable_roots": "ignored", "mcp_servers.docs": "translated", "mcp_servers.broken": "ignored",
		"projects./home/u/proj": "ignored",
	} {
		if st, _, why := r.entry(t, f, key); st != want || st == "ignored" && why == "" {
			t.Errorf("%s: %s (%s), want %s", key, st, why, want)
		}
	}
	if _, _, why := r.entry(t, f, "approval_policy"); !strings.Contains(why, "never imported") {
		t.Errorf("approval_policy never: %q", why)
	}
	if _, _, why := r.entry(t, f, "mcp_servers.docs"); !strings.Contains(why, "startup_timeout_sec ignored") {
		t.Errorf("docs server: %q", why)
	}
	u, err := loadUserConfig(func(k string) string { return e.env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if u.Model.Model != "gpt-5" || u.Model.BaseURL != "http://127.0.0.1:8080/v1" || u.Ext.MCPServers["docs"].Env["DOCS_TOKEN"] != "codex-s3cret" {
		t.Errorf("config as loaded: %+v %+v", u.Model, u.Ext.MCPServers)
	}
	policy, _ := os.ReadFile(filepath.Join(e.home, ".config/agentls/policy.json"))
	if !strings.Contains(string(policy), `"network": true`) {
		t.Errorf("policy.json:\n%s", policy)
	}
	if raw, _ := json.Marshal(r); bytes.Contains(raw, []byte("codex-s3cret")) {
		t.Error("the report shows a secret")
	}
}

// TestImport_Issue28_DamagedFiles: a damaged source file is reported as
// unreadable and the others are still imported; a damaged policy.json or
// config.json of the user's refuses --write, with nothing written; bad
// usage exits 2 and --help works.
func TestImport_Issue28_DamagedFiles(t *testing.T) {
	e := newImportEnv(t)
	e.file(t, e.home, ".claude/settings.json", `{"permissions": {"deny": ["Bash(git push:*)"]`)
	e.file(t, e.ws, ".claude/settings.json", `["not", "an", "object"]`)
	e.file(t, e.ws, ".claude/settings.local.json", `{"permissions": {"deny": [42, "Read(./secrets/**)"], "allow": "x"}, "hooks": {"PreToolUse": "x"}}`)
	e.file(t, e.home, ".codex/config.toml", "model = \"gpt-5\"\n[broken\n")
	r, code, _ := e.report(t, "claude")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	states := map[string]string{}
	for _, f := range r.Files {
		states[f.Path] = f.State
	}
	if states["~/.claude/settings.json"] != "unreadable" || states[".claude/settings.json (project)"] != "unreadable" ||
		states[".claude/settings.local.json (project)"] != "read" || states["~/.claude.json"] != "missing" {
		t.Errorf("file states: %v", states)
	}
	for key, want := range map[string]string{"permissions.deny[0]": "ignored", "permissions.deny[1]": "translated",
		"permissions.allow": "ignored", "hooks.PreToolUse": "ignored"} {
		if st, _, _ := r.entry(t, ".claude/settings.local.json (project)", key); st != want {
			t.Errorf("%s: %s, want %s", key, st, want)
		}
	}
	rc, _, _ := e.report(t, "codex")
	if len(rc.Files) != 1 || rc.Files[0].State != "unreadable" || !strings.Contains(rc.Files[0].Error, "line 2") {
		t.Errorf("codex files: %+v", rc.Files)
	}

	// A damaged policy.json refuses the write: neither file changes.
	damaged := `{"deny": ["read_file(a)"],}`
	pol := e.file(t, e.home, ".config/agentls/policy.json", damaged)
	code, out, errs := e.run(t, "", "import", "claude", "--write", "--root", e.ws)
	if got, _ := os.ReadFile(pol); code != 1 || string(got) != damaged || !strings.Contains(errs, "damaged") {
		t.Errorf("damaged policy.json: exit %d, file now %q\n%s\n%s", code, got, out, errs)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".config/agentls/config.json")); err == nil {
		t.Error("config.json written although the write was refused")
	}
	if tmp, _ := filepath.Glob(filepath.Join(e.home, ".config/agentls/.import-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	// Shape errors agentls's loader refuses count as damage too.
	os.WriteFile(pol, []byte(`{"deny": "read_file(a)"}`), 0o600)
	if code, _, errs := e.run(t, "", "import", "claude", "--write", "--root", e.ws); code != 1 || !strings.Contains(errs, "damaged") {
		t.Errorf("policy.json of the wrong shape: exit %d: %s", code, errs)
	}

	for _, args := range [][]string{{"import"}, {"import", "cursor"}, {"import", "claude", "codex"}, {"import", "--bogus", "claude"}} {
		if code, _, _ := e.run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, out, errs := e.run(t, "", "import", "--help"); code != 0 || !strings.Contains(out+errs, "-write") {
		t.Errorf("--help: exit %d", code)
	}
}

// TestImport_Issue28_FilesReadCarefully: the source files are read as
// untrusted configuration: a project file that is a symlink out of the
// workspace and a user file that is a FIFO are reported unreadable at
// once (no hang, nothing of them imported), and control bytes in an
// entry are shown as escapes.
func TestImport_Issue28_FilesReadCarefully(t *testing.T) {
	e := newImportEnv(t)
	outside := e.file(t, t.TempDir(), "settings.json", `{"permissions": {"deny": ["Bash(outside)"]}}`)
	os.MkdirAll(filepath.Join(e.ws, ".claude"), 0o755)
	if err := os.Symlink(outside, filepath.Join(e.ws, ".claude/settings.json")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(e.home, ".claude"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(e.home, ".claude/settings.json"), 0o600); err != nil {
		t.Skip(err)
	}
	e.file(t, e.ws, ".claude/settings.local.json", `{"permissions": {"deny": ["Bash(evil \u001b[2J\u202e)"]}}`)
	code, out, errs := e.run(t, "", "import", "claude", "--root", e.ws)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"~/.claude/settings.json: unreadable", ".claude/settings.json (project): unreadable", `\x1b[2J\u202e`} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "outside") || strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("report shows what it must not:\n%q", out)
	}
}
