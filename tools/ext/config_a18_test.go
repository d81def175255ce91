package ext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modelPart stands for the model's settings of config.json (cmd/agentls),
// which share the file with the extensions.
type modelPart struct {
	Model   string `json:"model"`
	BaseURL string `json:"base_url"`
}

// TestConfig_A18_UnknownKeysWarn (issue 22 item 8): keys of config.json,
// hooks.json and mcp.json that nobody reads are warnings that reach the
// user (Config.Warnings, then Extensions.Warnings and the log), at any
// depth; the keys of every part of the file are known, onFailure among
// them; a key that is not a plain name is never quoted from a project
// file.
func TestConfig_A18_UnknownKeysWarn(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.json")
	data := []byte(`{"model": "m", "Base_URL": "http://x", "permissions": {"allow": []},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "onFailure": "block", "async": true}]}]},
		"mcpServers": {"github": {"command": "gh-mcp", "cwd": "/tmp", "env": {"A": "b"}}}}`)
	c, err := DecodeUser(user, data, &modelPart{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.Warnings, "\n")
	for _, want := range []string{
		`unknown key "permissions" at the top level`,
		`unknown key "async" in hooks.PreToolUse[0].hooks[0]`,
		`unknown key "cwd" in mcpServers.github`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	if len(c.Warnings) != 3 {
		t.Errorf("want 3 warnings (model, Base_URL, onFailure and env are read):\n%s", got)
	}

	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(root, ProjectHooksFile), []byte(`{"description": "x",
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "TOPSECRET-1": 1}]}]},
		"mcpServers": {"s": {"command": "x"}}}`), 0o644)
	os.WriteFile(filepath.Join(root, ProjectMCPFile), []byte(`{"mcpServers": {"s": {"command": "x", "autoApprove": ["a"]}}}`), 0o644)
	p, err := LoadProject(root)
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(p.Warnings, "\n")
	for _, want := range []string{
		`project file .agentls/hooks.json: unknown key "description" at the top level`,
		`project file .agentls/hooks.json: an unknown key in hooks.Stop[0].hooks[0]`,
		`project file .agentls/hooks.json: unknown key "mcpServers" at the top level`,
		`project file .agentls/mcp.json: unknown key "autoApprove" in mcpServers.s`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TOPSECRET") {
		t.Errorf("a project file's key is quoted:\n%s", got)
	}
	x := Start(t.Context(), &Options{Root: root, User: c, Project: p, NoMCP: true})
	if w := strings.Join(x.Warnings, "\n"); !strings.Contains(w, `"permissions"`) || !strings.Contains(w, `"autoApprove"`) {
		t.Errorf("Start does not report the configuration warnings:\n%s", w)
	}
}
