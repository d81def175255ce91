package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
)

// TestConfig_T20_UserConfigFIFO (issue 22 item 10): the model's settings
// are read from config.json by the one reader of that file: a FIFO (or a
// device, or a directory) is an error at once — it used to block forever
// in open(2), where SIGTERM cannot end the process — and a file over the
// size cap is refused.
func TestConfig_T20_UserConfigFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "config.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	huge := filepath.Join(dir, "huge.json")
	os.WriteFile(huge, []byte(`{"model": "`+strings.Repeat("m", 2<<20)+`"}`), 0o600)
	for path, want := range map[string]string{fifo: "not a regular file", dir: "not a regular file", huge: "too large"} {
		done := make(chan error, 1)
		go func() {
			_, err := agent.LoadConfig(path, func(string) string { return "" })
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", filepath.Base(path), err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: LoadConfig blocks", filepath.Base(path))
		}
	}
	// A regular file, and none, still load.
	ok := filepath.Join(dir, "ok.json")
	os.WriteFile(ok, []byte(`{"model": "m", "hooks": {}, "mcpServers": {}}`), 0o600)
	if c, err := agent.LoadConfig(ok, func(string) string { return "" }); err != nil || c.Model != "m" {
		t.Errorf("a regular file: %+v, %v", c, err)
	}
	if _, err := agent.LoadConfig(filepath.Join(dir, "missing.json"), func(string) string { return "" }); err != nil {
		t.Errorf("a missing file: %v", err)
	}
}
