package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPolicy_Issue28_RuleOrigin: every loaded rule cites the file and line
// it was written on (a profile's rule says so, and the same text twice gets
// its own line); the built-in defaults say "built-in default".
func TestPolicy_Issue28_RuleOrigin(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policy.json")
	text := "{\n" +
		"  \"deny\": [\"run_command(git push *)\"],\n" +
		"  \"ask\": [\n    \"write_file(**.md)\"\n  ],\n" +
		"  \"profiles\": {\"ci\": {\"deny\": [\"run_command(git push *)\"]}}\n" +
		"}\n"
	if err := os.WriteFile(user, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy("ci", user, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"run_command(git push *)": {user + ":2", user + ":6 (profile ci)"},
		"write_file(**.md)":       {user + ":4"},
	}
	got := map[string][]string{}
	defaults := 0
	for _, r := range p.Rules {
		if r.Origin == "" {
			defaults++
			if r.Where() != "built-in default" {
				t.Errorf("default rule %q: Where() = %q", r.Text, r.Where())
			}
			continue
		}
		got[r.Text] = append(got[r.Text], r.Where())
	}
	for k, v := range want {
		if len(got[k]) != len(v) {
			t.Fatalf("rule %q origins %v, want %v", k, got[k], v)
		}
		for i := range v {
			if got[k][i] != v[i] {
				t.Errorf("rule %q origin %d = %q, want %q", k, i, got[k][i], v[i])
			}
		}
	}
}
