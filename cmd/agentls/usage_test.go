package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// E17 (#13): plain `agentls` typed on a terminal prints the usage and
// exits instead of waiting silently for LSP frames (an editor starts the
// server with a pipe).
func TestRun_E17_PlainOnTerminalPrintsUsage(t *testing.T) {
	tty := openPTY(t)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), nil, tty, &stdout, &stderr, func(string) string { return "" })
	if code != 0 || !strings.HasPrefix(stdout.String(), "usage:") || !strings.Contains(stdout.String(), "agentls [serve]") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// Issue 25: /dev/null is a character device, not a terminal: `agentls
// exec … </dev/null` is a script, whose approvals default to never; a
// terminal's default to ask.
func TestDefaultApprove_E11_DevNullIsNoTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if got := defaultApprove(null); got != "never" {
		t.Errorf("</dev/null: --approve defaults to %q, want never", got)
	}
	if got := defaultApprove(openPTY(t)); got != "ask" {
		t.Errorf("on a terminal: --approve defaults to %q, want ask", got)
	}
}

// openPTY opens a pseudo-terminal and returns its terminal end.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// Issue 25: a bad command line is exit code 2 with a message, for every
// case a user trips on: help for no command, --file missing or a
// directory, an unknown profile, a policy file that is not there, and a
// flag after the instruction that does not exist (flags are read
// anywhere on the line, so it is a flag, not instruction text).
func TestRun_E17_BadCommandLinesExit2(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("pkg", 0o755)
	os.WriteFile("a.go", []byte("package a\n"), 0o644)
	env := map[string]string{"HOME": dir, "XDG_STATE_HOME": filepath.Join(dir, "state")}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "bogus"}, `no command "bogus"`},
		{[]string{"plan", "--file", "missing.go", "explain"}, "--file missing.go: no such file"},
		{[]string{"plan", "--file", "pkg", "explain"}, "--file pkg: a directory"},
		{[]string{"review", "--profile", "bogus"}, `unknown profile "bogus"`},
		{[]string{"vet", "--policy", "/missing.json"}, "/missing.json"},
		{[]string{"call", "--policy", "/missing.json", "read_file", `{"path":"a.go"}`}, "/missing.json"},
		{[]string{"plan", "explain", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"sessions", "show"}, "usage: agentls sessions"},
		{[]string{"trust", "--yes", "--revoke"}, "usage: agentls trust"},
		{[]string{"mcp", "lst"}, "usage: agentls mcp"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), tc.args, strings.NewReader(""), &stdout, &stderr, getenv)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, want 2 and %q in stderr:\n%s", tc.args, code, tc.want, stderr.String())
		}
	}
}

// Issue 25: every subcommand answers --help (and `agentls help CMD`) on
// stdout with exit code 0; flags may follow the other arguments
// (`sessions show ID --json` is the JSON of session ID, not a usage
// error).
func TestRun_E17_HelpEverywhereFlagsAnywhere(t *testing.T) {
	t.Chdir(t.TempDir())
	env := map[string]string{"HOME": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	for name := range subcommands {
		for _, args := range [][]string{{name, "--help"}, {"help", name}} {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != 0 || !strings.HasPrefix(stdout.String(), "usage: agentls") || stderr.Len() > 0 {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
			}
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"sessions", "show", "nosuch", "--json"}, strings.NewReader(""), &stdout, &stderr, getenv)
	if code != 1 || strings.Contains(stderr.String(), "usage:") {
		t.Errorf("sessions show ID --json: exit %d, stderr %q (want the lookup's error, not the usage)", code, stderr.String())
	}
}

// Issue 25: the version comes from the build: the module version of an
// installed release, else the VCS revision of a checkout, never "dev".
func TestVersion_Issue25_FromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "devel+0123456789ab+dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	} {
		if got := versionOf(&tc.bi); got != tc.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
	if v := buildVersion(); v == "" || v == "dev" {
		t.Errorf("buildVersion() = %q", v)
	}
}
