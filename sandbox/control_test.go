package sandbox

import "testing"

// TestIsControlPath_E15 covers the list of DESIGN E15 in the spellings a
// resolved path can still have: any depth, any case.
func TestIsControlPath_E15(t *testing.T) {
	cases := []struct {
		rel          string
		control, own bool
	}{
		{".agentls/policy.json", true, true},
		{".agentls", true, true},
		{".AgentLS/policy.json", true, true},
		{"sub/.agentls/hooks.json", true, true},
		{"./.agentls/mcp.json", true, true},
		{".vscode/settings.json", true, false},
		{".VSCode/tasks.json", true, false},
		{"pkg/.vscode/settings.json", true, false},
		{".idea/workspace.xml", true, false},
		{".zed/settings.json", true, false},
		{".helix/config.toml", true, false},
		{".husky/pre-commit", true, false},
		{".git/hooks/pre-commit", true, false},
		{"vendor/x/.git/config", true, false},
		{".nvim.lua", true, false},
		{".exrc", true, false},
		{".EXRC", true, false},
		{".envrc", true, false},
		{"sub/.envrc", true, false},
		{".gitattributes", true, false},
		{".gitmodules", true, false},
		{"notes.txt", false, false},
		{"src/main.go", false, false},
		{"docs/vscode.md", false, false},
		{"envrc", false, false},
		{".envrc.example/x", false, false},
		{".gitignore", false, false},
		{"agentls/policy.json", false, false},
		{"a.agentls", false, false},
		{".github/workflows/ci.yml", false, false},
		{".", false, false},
	}
	for _, c := range cases {
		control, own := IsControlPath(c.rel)
		if control != c.control || own != c.own {
			t.Errorf("IsControlPath(%q) = %v, %v; want %v, %v", c.rel, control, own, c.control, c.own)
		}
	}
}

// TestIsSecretPath_Issue10_14 covers the one list of secret-looking names
// that the shell analyser and the file tools share.
func TestIsSecretPath_Issue10_14(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, "app/.env": true, ".ENV": true, ".env.local": true, ".env.example": false,
		".ssh/id_rsa": true, "id_ed25519": true, "keys/id_work": true, "id_rsa.pub": false, "id_test.go": false,
		"certs/server.pem": true, "tls.key": true, ".netrc": true, "/home/u/.aws/config": true,
		"src/main.go": false, "README.md": false, "environment.go": false, "docs/keys.md": false,
	} {
		if got := IsSecretPath(p); got != want {
			t.Errorf("IsSecretPath(%q) = %v, want %v", p, got, want)
		}
	}
}
