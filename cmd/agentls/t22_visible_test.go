package main

// T22, issue 22 item 2: `agentls sessions`, `sessions show`, `mcp list`
// and `call` print names, instructions, summaries and questions that came
// from the model, the repository or a server with their control
// characters made visible, never raw. (The headless run's own output is
// tested in lspserver/headless, t22_visible_test.go.)

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llmtest"
)

// t22Env is the environment of a run in a fresh home, against srv when
// it is not nil.
func t22Env(t *testing.T, srv *llmtest.Server) (home string, getenv func(string) string) {
	t.Helper()
	home = t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".state"),
		"PATH": os.Getenv("PATH"),
	}
	if srv != nil {
		env["OPENAI_BASE_URL"], env["AGENTLS_MODEL"], env["OPENAI_API_KEY"] = srv.URL, "scripted", "sk-test-not-a-secret"
	}
	return home, func(k string) string { return env[k] }
}

// t22Run runs agentls ARGS in-process and returns its exit code and what
// it printed.
func t22Run(getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut, getenv)
	return code, out.String(), errOut.String()
}

// t22Raw fails the test for each raw control character that reached the
// terminal.
func t22Raw(t *testing.T, what, stdout, stderr, chars string) {
	t.Helper()
	for _, r := range chars {
		if strings.ContainsRune(stdout+stderr, r) {
			t.Errorf("%s: a raw %q reached the terminal:\nstdout: %q\nstderr: %q", what, r, stdout, stderr)
		}
	}
}

// TestSessions_T22_Visible: a session whose instruction, model answer and
// tool call name hold escape sequences is listed and shown with them
// visible.
func TestSessions_T22_Visible(t *testing.T) {
	script, err := llmtest.ParseScript([]byte(`{"tool_calls":[{"name":"read\u001b[2J_file","arguments":{}}]}
{"content":"Done.\u001b[2J\u001b[H\rNothing to change \u202eok"}`))
	must(t, err)
	srv := llmtest.NewServer(script)
	defer srv.Close()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644))
	t.Chdir(dir)
	_, getenv := t22Env(t, srv)
	const instruction = "say hello\x1b[2K\rlook: nothing here"
	const vInstruction = `say hello\x1b[2K\rlook: nothing here`
	if code, stdout, stderr := t22Run(getenv, "exec", "--approve=never", instruction); code != 0 {
		t.Fatalf("exec: exit %d\n%s\n%s", code, stdout, stderr)
	}

	code, stdout, stderr := t22Run(getenv, "sessions")
	if code != 0 {
		t.Fatalf("sessions: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t22Raw(t, "sessions", stdout, stderr, "\x1b\r")
	if !strings.Contains(stdout, vInstruction+"\n") {
		t.Errorf("sessions does not list the task visibly:\n%s", stdout)
	}

	_, list, _ := t22Run(getenv, "sessions", "--json")
	var info struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(list)), &info); err != nil || info.ID == "" {
		t.Fatalf("sessions --json: %q: %v", list, err)
	}
	code, stdout, stderr = t22Run(getenv, "sessions", "show", info.ID)
	if code != 0 {
		t.Fatalf("sessions show: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t22Raw(t, "sessions show", stdout, stderr, "\x1b\r\u202e")
	for _, want := range []string{
		"  execute  done  " + vInstruction + "\n",
		"→ " + `read\x1b[2J_file` + "\n",
		`Done.\x1b[2J\x1b[H\rNothing to change \u202eok` + "\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, stdout)
		}
	}
}

// TestMCPList_T22_Visible: `mcp list` shows server names (the user's and
// an untrusted project's), the commands they run and why they failed with
// their escape sequences visible.
func TestMCPList_T22_Visible(t *testing.T) {
	self, err := os.Executable()
	must(t, err)
	home, getenv := t22Env(t, nil)
	user, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"e\x1b[31mvil\u202e": map[string]any{"command": self, "env": map[string]string{"MCPTEST_SERVER": "1"}},
		"b\x1b[2Kroken":      map[string]any{"command": "no-such-mcp\x1b[8m-server"},
	}})
	must(t, os.MkdirAll(filepath.Join(home, ".config", "agentls"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, ".config", "agentls", "config.json"), user, 0o644))
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	project, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"p\x1b[5mroj": map[string]any{"command": "x\x1b]0;title\x07y"},
	}})
	must(t, os.MkdirAll(filepath.Join(root, ".agentls"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".agentls", "mcp.json"), project, 0o644))

	code, stdout, stderr := t22Run(getenv, "mcp", "list", "--root", root)
	if code != 0 {
		t.Fatalf("mcp list: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t22Raw(t, "mcp list", stdout, stderr, "\x1b\r\x07\u202e")
	for _, want := range []string{
		"\n" + `e\x1b[31mvil\u202e: running, 5 tools` + "\n",
		"\n" + `b\x1b[2Kroken: failed — `,
		`no-such-mcp\x1b[8m-server`,
		`p\x1b[5mroj: untrusted — `,
		`x\x1b]0;title\x07y`,
	} {
		if !strings.Contains("\n"+stdout, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, stdout)
		}
	}
}

// TestCall_T22_Visible: `call` says on stderr what it approved or denied
// — the model-supplied question, path and content — with escape sequences
// visible; its stdout is JSON.
func TestCall_T22_Visible(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	_, getenv := t22Env(t, nil)
	for _, tc := range []struct {
		tool, args, want string
		code             int // human_confirm's deny is an answer, a write's an error
	}{
		{"human_confirm", `{"question":"Deploy?\u001b[8m hidden\r\u001b[2KSafe?"}`, `human_confirm Deploy?\x1b[8m hidden\r\x1b[2KSafe?`, 0},
		{"write_file", `{"path":"a.txt","content":"ok\r\u001b[2Kcurl x | sh\n"}`, "\n+ok\\r\\x1b[2Kcurl x | sh\n", 1},
	} {
		code, stdout, stderr := t22Run(getenv, "call", "--root", root, "--approve", "never", tc.tool, tc.args)
		if code != tc.code {
			t.Errorf("call %s: exit %d, want %d\n%s\n%s", tc.tool, code, tc.code, stdout, stderr)
		}
		t22Raw(t, "call "+tc.tool, stdout, stderr, "\x1b\r")
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("call %s: stderr lacks %q:\n%s", tc.tool, tc.want, stderr)
		}
	}
}
