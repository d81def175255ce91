package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// E22, issue 28: the permission request of a proposal that breaks the
// Go build carries the failing check, before anything lands.
func TestACP_E22_BrokenBuildShownInPermission(t *testing.T) {
	// The detected checks, with a budget a go build in the sandbox of a
	// loaded machine fits in (the default is 3 s).
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	os.MkdirAll(filepath.Join(cfg, "agentls"), 0o755)
	os.WriteFile(filepath.Join(cfg, "agentls", "config.json"), []byte(`{"proposal_checks": {"budget_seconds": 60}}`), 0o600)
	f := start(t, setup{files: map[string]string{"go.mod": "module example.com/e22\n\ngo 1.21\n", "main.go": "package main\n\nfunc main() {}\n"},
		script: `{"tool_calls":[{"name":"write_file","arguments":{"path":"lib.go","content":"package main\n\nfunc helper() int { return undefinedThing }\n"}}]}
{"content":"done"}
`})
	f.cl.answer = func(sdk.RequestPermissionRequest) string { return "reject_once" }
	sid := f.newSession("execute")
	f.mustPrompt(sid, "add lib.go", sdk.StopReasonEndTurn)
	_, perms := f.cl.snapshot()
	if len(perms) != 1 {
		t.Fatalf("permissions = %d, want 1", len(perms))
	}
	content := mustJSON(perms[0].ToolCall.Content)
	if strings.Contains(content, "not run: the sandbox cannot") {
		t.Skipf("this kernel cannot stage the checks: %s", content)
	}
	if !strings.Contains(content, "checks: go build: 1 problem: lib.go:3: undefined: undefinedThing") {
		t.Errorf("the permission does not show the failing build: %s", content)
	}
	if _, err := os.Stat(filepath.Join(f.root, "lib.go")); err == nil {
		t.Error("lib.go landed")
	}
}
