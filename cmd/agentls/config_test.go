package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A5, #12 item 7: the stall limit is configurable, by the config file or
// AGENTLS_STALL_TIMEOUT (which wins), as a duration or in seconds; a bad
// value is an error, never silently the default.
func TestUserConfig_A5_StallTimeout(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agentls"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agentls", "config.json"), []byte(`{"model":"m","stall_timeout_seconds":45}`), 0o600); err != nil {
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
		env := map[string]string{"AGENTLS_STALL_TIMEOUT": tc.env, "XDG_CONFIG_HOME": dir}
		c, err := loadUserConfig(func(k string) string { return env[k] })
		switch {
		case tc.bad && err == nil:
			t.Errorf("%q: accepted as %v", tc.env, c.Model.StallTimeout())
		case !tc.bad && err != nil:
			t.Errorf("%q: %v", tc.env, err)
		case !tc.bad && c.Model.StallTimeout() != tc.want:
			t.Errorf("%q: %v, want %v", tc.env, c.Model.StallTimeout(), tc.want)
		}
	}
}

// TestUserConfig_T20_OneReader (issues 22 and 23): config.json is read
// once, by one reader, for the model's settings and the extensions
// alike: a FIFO (or a directory) is an error at once — it used to block
// forever in open(2), where SIGTERM cannot end the process — a file over
// the size cap is refused, and a regular file gives both parts.
func TestUserConfig_T20_OneReader(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentls", "config.json")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": dir}[k] }
	load := func() error {
		done := make(chan error, 1)
		go func() { _, err := loadUserConfig(getenv); done <- err }()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("loadUserConfig blocks")
			return nil
		}
	}
	if err := syscall.Mkfifo(cfg, 0o600); err != nil {
		t.Skip(err)
	}
	if err := load(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
	os.Remove(cfg)
	os.Mkdir(cfg, 0o700)
	if err := load(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	os.Remove(cfg)
	os.WriteFile(cfg, []byte(`{"model": "`+strings.Repeat("m", 2<<20)+`"}`), 0o600)
	if err := load(); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a huge file: %v", err)
	}
	os.WriteFile(cfg, []byte(`{"model": "m", "hooks": {}, "mcpServers": {"s": {"command": "x"}}, "colour": 1}`), 0o600)
	c, err := loadUserConfig(getenv)
	if err != nil || c.Model.Model != "m" || len(c.Ext.MCPServers) != 1 || len(c.Ext.Warnings) != 1 {
		t.Errorf("a regular file: %+v, %v", c, err)
	}
	os.Remove(cfg)
	if c, err := loadUserConfig(getenv); err != nil || c.Ext == nil {
		t.Errorf("a missing file: %+v, %v", c, err)
	}
}

// TestUserConfig_T20_FIFOEveryCommand (issue 23): with a FIFO as the
// user's config.json, every command that runs with the config fails at
// once with exit code 1 and says why; none blocks (serve would wait for
// its client on stdin, exec for the model).
func TestUserConfig_T20_FIFOEveryCommand(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".config", "agentls", "config.json")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	if err := syscall.Mkfifo(cfg, 0o600); err != nil {
		t.Skip(err)
	}
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")}
	getenv := func(k string) string { return env[k] }
	argv := map[string][]string{"call": {"read_file", `{"path":"x"}`}, "mcp": {"list"}, "plan": {"hi"}, "exec": {"hi"}, "execute": {"hi"}}
	names := make([]string, 0, len(subcommands))
	for name := range subcommands {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) < 11 {
		t.Fatalf("only %d subcommands: %v", len(names), names)
	}
	for _, name := range names {
		var stdout, stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		start := time.Now()
		code := run(ctx, append([]string{name}, argv[name]...), strings.NewReader(""), &stdout, &stderr, getenv)
		cancel()
		if code != 1 || !strings.Contains(stderr.String(), "not a regular file") || time.Since(start) > 5*time.Second {
			t.Errorf("%s: exit %d after %v, stderr %q", name, code, time.Since(start).Round(time.Millisecond), stderr.String())
		}
	}
}
