package shell

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// TestShellPolicy_T19_SimpleCommands: a verdict lists each simple
// command, wrapped command and redirection with its own decision, and
// marks what a rule naming the command can never lift (the flags that run
// other programs), so that the policy can combine rules per command.
func TestShellPolicy_T19_SimpleCommands(t *testing.T) {
	p, _ := shellFixture(t)
	type want struct {
		kind       Kind
		text       string
		dec, fixed sandbox.Decision
	}
	for _, c := range []struct {
		cmd  string
		want []want
	}{
		{"go test ./... ; rm -rf src", []want{
			{KindCommand, "go test ./...", sandbox.Allow, sandbox.Allow},
			{KindCommand, "rm -rf src", sandbox.Ask, sandbox.Allow}}},
		{"go test -exec 'sh -c id' ./...", []want{
			{KindCommand, "go test -exec 'sh -c id' ./...", sandbox.Ask, sandbox.Ask}}},
		{"go test ./... > /tmp/out", []want{
			{KindCommand, "go test ./...", sandbox.Allow, sandbox.Allow},
			{KindRedirect, "> /tmp/out", sandbox.Ask, sandbox.Ask}}},
		{"timeout 5 make test | tail -3", []want{
			{KindCommand, "timeout 5 make test", sandbox.Allow, sandbox.Allow},
			{KindCommand, "make test", sandbox.Allow, sandbox.Allow},
			{KindCommand, "tail -3", sandbox.Allow, sandbox.Allow}}},
		{"git -c core.pager=less log", []want{
			{KindCommand, "git -c core.pager=less log", sandbox.Ask, sandbox.Ask},
			{KindCommand, "less", sandbox.Allow, sandbox.Allow}}},
		{"sort --compress-program=gzip -S 1 README.md", []want{
			{KindCommand, "sort --compress-program=gzip -S 1 README.md", sandbox.Ask, sandbox.Ask}}},
		{"PAGER=cat git log", []want{{KindCommand, "PAGER=cat git log", sandbox.Ask, sandbox.Ask},
			{KindCommand, "cat", sandbox.Allow, sandbox.Allow}}},
		{"f() { ls; }; f", []want{
			{KindCommand, "ls", sandbox.Allow, sandbox.Allow},
			{KindCommand, "f", sandbox.Ask, sandbox.Ask},
			{KindSyntax, "", sandbox.Ask, sandbox.Ask}}},
	} {
		v := p.Analyze(c.cmd)
		var got []want
		for _, s := range v.Simple {
			got = append(got, want{s.Kind, s.Text, s.Decision, s.Fixed})
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: commands %+v, want %+v", c.cmd, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: command %d = %+v, want %+v", c.cmd, i, got[i], c.want[i])
			}
		}
	}
}

// TestShellPolicy_T19_SimpleInvariants checks on every example and bypass
// case that a verdict's decision is the strictest of its commands'.
func TestShellPolicy_T19_SimpleInvariants(t *testing.T) {
	p, _ := shellFixture(t)
	cmds := []string{strings.Repeat("ls;", 300)}
	for _, c := range loadShellCases(t, "testdata/shell.jsonl") {
		cmds = append(cmds, c.Cmd)
	}
	for _, fam := range bypassFamilies {
		cmds = append(cmds, fam.cmds...)
	}
	for _, fam := range projectFamilies {
		cmds = append(cmds, fam.cmds...)
	}
	for _, cmd := range cmds {
		checkSimple(t, cmd, p.Analyze(cmd))
	}
}

// TestShellPolicy_T19_CommandRules: a user's command rule from the policy
// file ("commands") decides for the command it names instead of the
// table, but not for what that command's flags run or the commands it
// wraps; before the fix {go test: allow} allowed go test -exec, and
// {timeout: allow} allowed timeout 5 rm -rf src.
func TestShellPolicy_T19_CommandRules(t *testing.T) {
	p, _ := shellFixture(t)
	p.Extra = []CommandRule{{Name: "go", Args: []string{"test"}, Decision: sandbox.Allow},
		{Name: "timeout", Decision: sandbox.Allow}, {Name: "make", Decision: sandbox.Allow}}
	checkShell(t, p, sandbox.Allow, "go test ./...", "timeout 5 ls", "make test", "timeout 60 make test")
	checkShell(t, p, sandbox.Ask, "go test -exec 'sh -c id' ./...", "go test -toolexec x ./...",
		"timeout 5 rm -rf src", "timeout 5 python3 x.py", "make test > /tmp/out", "make; rm x")
	checkShell(t, p, sandbox.Deny, "timeout 5 rm -rf ~", "go test ./... | sh")
}
