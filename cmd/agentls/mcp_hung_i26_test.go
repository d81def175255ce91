package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
)

// TestPlan_B6_Issue26_HungMCPServerDoesNotDelay: a user MCP server that
// never answers initialize (its start timeout is the default 30 s) does not
// delay a plan run, which uses no MCP tool: `agentls plan` finishes in
// under 3 s (issue 26: it took 31 s).
func TestPlan_B6_Issue26_HungMCPServerDoesNotDelay(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	cfg := filepath.Join(home, ".config", "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	err := os.WriteFile(cfg, []byte(`{"mcpServers": {"hung": {"command": "sleep", "args": ["1000"]}}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := llmtest.ParseScript([]byte(`{"content":"1. nothing to do"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(script)
	defer srv.Close()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(dir, "state"),
		"PATH": os.Getenv("PATH"), "OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-test-not-a-secret", "AGENTLS_MODEL": "scripted",
	}
	t.Chdir(ws)
	var stdout, stderr bytes.Buffer
	begin := time.Now()
	code := run(t.Context(), []string{"plan", "--file", "a.go", "plan it"}, strings.NewReader(""), &stdout, &stderr,
		func(k string) string { return env[k] })
	took := time.Since(begin)
	t.Logf("agentls plan with a hung MCP server: %s (exit %d)", took, code)
	if code != 0 || !strings.Contains(stdout.String(), "nothing to do") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if took > 3*time.Second {
		t.Errorf("agentls plan took %s with an MCP server that never answers initialize; want under 3s", took)
	}
}
