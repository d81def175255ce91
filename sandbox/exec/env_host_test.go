package exec

import (
	"slices"
	"testing"
)

// TestHostEnv_A13_Scrubbed: hooks and MCP servers get the allowlist with
// HOME, never a key, a token or a URL with a password.
func TestHostEnv_A13_Scrubbed(t *testing.T) {
	got := HostEnv([]string{"PATH=/usr/bin", "HOME=/home/u", "OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=t",
		"LC_ALL=C", "PROXY=http://u:p@h", "LANG=C.UTF-8", "MY_SECRET=x", "EDITOR=vi", "LD_PRELOAD=/x.so", "noequals"})
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C", "LANG=C.UTF-8"}
	if !slices.Equal(got, want) {
		t.Errorf("HostEnv = %q, want %q", got, want)
	}
}
