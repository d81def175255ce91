package sandbox

import "testing"

// TestMatchControlPath_E15: every spelling of a control file matches, in
// any component; look-alikes do not.
func TestMatchControlPath_E15(t *testing.T) {
	tests := []struct {
		rel  string
		want string // "" means not a control path
	}{
		{".git", ".git"},
		{".git/config", ".git"},
		{".git/hooks/pre-commit", ".git"},
		{"./.git/config", ".git"},
		{"src/../.git/config", ".git"},
		{"/.git/config", ".git"},
		{".GIT/config", ".git"},
		{".Git/HEAD", ".git"},
		{".git\\hooks\\pre-commit", ".git"},
		{"vendor/lib/.git/hooks/post-checkout", ".git"},
		{"sub/.envrc", ".envrc"},
		{".envrc", ".envrc"},
		{".agentls/policy.json", ".agentls"},
		{".AgentLS/policy.json", ".agentls"},
		{".vscode/settings.json", ".vscode"},
		{".idea/workspace.xml", ".idea"},
		{".zed/settings.json", ".zed"},
		{".helix/languages.toml", ".helix"},
		{".nvim.lua", ".nvim.lua"},
		{".exrc", ".exrc"},
		{".husky/pre-commit", ".husky"},
		{".gitattributes", ".gitattributes"},
		{"docs/.gitattributes", ".gitattributes"},
		{".gitmodules", ".gitmodules"},
		{"", ""},
		{".", ""},
		{"src/main.go", ""},
		{".gitignore", ""},
		{".github/workflows/ci.yml", ""},
		{"git/config", ""},
		{".git-old/config", ""},
		{"x.git", ""},
		{".envrc.example", ""},
		{".vscode-test/x", ""},
		{".git/../src/main.go", ""},
	}
	for _, tt := range tests {
		got, ok := MatchControlPath(tt.rel)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("MatchControlPath(%q) = %q, %v; want %q", tt.rel, got, ok, tt.want)
		}
		if control, _ := IsControlPath(tt.rel); control != ok {
			t.Errorf("IsControlPath(%q) disagrees with MatchControlPath", tt.rel)
		}
	}
}

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
