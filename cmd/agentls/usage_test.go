package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// E17 (#13): plain `agentls` typed on a terminal prints the usage and
// exits instead of waiting silently for LSP frames. /dev/null stands in
// for the terminal: both are character devices, which is what the check
// looks at (an editor starts the server with a pipe).
func TestRun_E17_PlainOnTerminalPrintsUsage(t *testing.T) {
	tty, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), nil, tty, &stdout, &stderr, func(string) string { return "" })
	if code != 0 || !strings.HasPrefix(stdout.String(), "usage:") || !strings.Contains(stdout.String(), "agentls [serve]") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}
