package agent_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
)

// A5, #12 item 7: the stall limit is configurable, by the config file or
// AGENTLS_STALL_TIMEOUT (which wins), as a duration or in seconds; a bad
// value is an error, never silently the default.
func TestLoadConfig_A5_StallTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"model":"m","stall_timeout_seconds":45}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  string
		want time.Duration
		bad  bool
	}{
		{"", 45 * time.Second, false},
		{"30s", 30 * time.Second, false},
		{"2m", 2 * time.Minute, false},
		{"90", 90 * time.Second, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"soon", 0, true},
		{"-5", 0, true},
		{"0", 0, true},
		{"1e9", 0, true},
	} {
		env := map[string]string{"AGENTLS_STALL_TIMEOUT": tc.env}
		c, err := agent.LoadConfig(path, func(k string) string { return env[k] })
		switch {
		case tc.bad && err == nil:
			t.Errorf("%q: accepted as %v", tc.env, c.StallTimeout())
		case !tc.bad && err != nil:
			t.Errorf("%q: %v", tc.env, err)
		case !tc.bad && c.StallTimeout() != tc.want:
			t.Errorf("%q: %v, want %v", tc.env, c.StallTimeout(), tc.want)
		}
	}
}
