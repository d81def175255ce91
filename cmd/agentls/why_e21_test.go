package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhy_Issue28_ExitCodes (E21, E17): `agentls why` exits 2 on a bad
// command line, 1 on a run or session it cannot find (with a message
// that says so), and 0 with its usage for --help.
func TestWhy_Issue28_ExitCodes(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		code int
		out  string // on stdout (exit 0) or stderr
	}{
		{[]string{"--help"}, 0, "agentls why"},
		{nil, 2, "usage: agentls why"},
		{[]string{"a-1", "b-2"}, 2, "usage: agentls why"},
		{[]string{"abcdef012345-1:x"}, 2, `"x" is not a step number`},
		{[]string{"abcdef012345-1:0"}, 2, "not a step number"},
		{[]string{"--bogus", "abcdef012345-1"}, 2, "bogus"},
		{[]string{"not-a-run"}, 1, "not a run ID"},
		{[]string{"abcdef012345"}, 1, "is a session, not a run"},
		{[]string{"abcdef012345-1"}, 1, "no run abcdef012345-1 in this workspace"},
	} {
		var out, errb bytes.Buffer
		code := run(t.Context(), append([]string{"why"}, c.args...), strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
		got := errb.String()
		if c.code == 0 {
			got = out.String() + errb.String()
		}
		if code != c.code || !strings.Contains(got, c.out) {
			t.Errorf("why %q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out.String(), errb.String(), c.code, c.out)
		}
	}
}
