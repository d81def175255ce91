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
		if IsControlPath(tt.rel) != ok {
			t.Errorf("IsControlPath(%q) disagrees with MatchControlPath", tt.rel)
		}
	}
}
