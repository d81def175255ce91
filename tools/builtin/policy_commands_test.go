package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/tools"
)

// decideCommand runs run_command's check and the policy on cmd, in a
// workspace with a src directory, as the gateway does.
func decideCommand(t *testing.T, p *tools.Policy, cmd string) (tools.Decision, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Root: root, Home: "/home/u"}
	raw, _ := json.Marshal(map[string]string{"command": cmd})
	v, err := RunCommand().Check(context.Background(), env, raw)
	if err != nil {
		t.Fatal(err)
	}
	return p.Decide(RunCommand(), v)
}

func policyWith(t *testing.T, profile string, rules ...string) *tools.Policy {
	t.Helper()
	p := tools.DefaultPolicy(profile)
	for i := 0; i+1 < len(rules); i += 2 {
		r, err := tools.ParseRule(rules[i+1], tools.Decision(rules[i]), "user")
		if err != nil {
			t.Fatal(err)
		}
		p.Rules = append(p.Rules, r)
	}
	return p
}

// TestPolicy_T19_RulesMatchPerSimpleCommand: with the README's rule
// run_command(go test *), only go test itself runs without asking; what
// is chained, piped, substituted or redirected after it, and the flags
// that make go run another program, are decided on their own. Before the
// fix every case below came back allow, because the rule's glob matched
// the whole command line.
func TestPolicy_T19_RulesMatchPerSimpleCommand(t *testing.T) {
	p := policyWith(t, tools.ProfileEditor, "allow", "run_command(go test *)", "deny", "run_command(git push *)")
	for _, c := range []struct {
		cmd  string
		want tools.Decision
	}{
		{"go test ./...", tools.Allow},
		{"go test -run 'TestA|TestB' -count=1 ./...", tools.Allow},
		{"go test ./... 2>&1 | tail -20", tools.Allow}, // tail is read-only by the analyser
		{"timeout 60 go test ./...", tools.Allow},      // the wrapped command is matched
		{"go test ./... ; rm -rf src", tools.Ask},
		{"go test ./... && rm -rf src", tools.Ask},
		{"go test ./... ; python3 -c 'print(1)'", tools.Ask},
		{"go test -exec 'sh -c id' ./...", tools.Ask},
		{"go test -toolexec /tmp/x ./...", tools.Ask},
		{"go test -vettool=/tmp/x ./...", tools.Ask},
		{"go test ./... > /tmp/out", tools.Ask},
		{"go test ./... > out.txt", tools.Ask}, // a redirection is never covered by a command rule
		{"go test ./... ; git push", tools.Ask},
		{"go test ./... ; git push origin main", tools.Deny}, // a deny rule matches the one command
		{"ls && timeout 5 git push origin main", tools.Deny},
		{"go test $(rm -rf src) ./...", tools.Ask},
		{"go test ./... | sh", tools.Deny}, // the analyser's deny always wins
		{"go test ./... ; rm -rf ~", tools.Deny},
		{"GOFLAGS=-toolexec=/tmp/x go test ./...", tools.Ask}, // an assignment prefix is not the command the rule names
		{"bash -c 'go test ./... ; rm -rf src'", tools.Ask},
		{"go test ./... & ", tools.Ask},
	} {
		if got, rule := decideCommand(t, p, c.cmd); got != c.want {
			t.Errorf("%q = %s (%s), want %s", c.cmd, got, rule, c.want)
		}
	}
}

// TestPolicy_T19_RulesStillDecide: rules keep doing what they are for: an
// allow rule lifts the ask of the command it names, an ask rule on one
// command asks for the line, and a rule without a pattern still covers
// every command.
func TestPolicy_T19_RulesStillDecide(t *testing.T) {
	for _, c := range []struct {
		rules []string
		cmd   string
		want  tools.Decision
	}{
		{[]string{"allow", "run_command(make *)"}, "make test", tools.Allow},
		{[]string{"allow", "run_command(make *)"}, "make test && make lint", tools.Allow},
		{[]string{"allow", "run_command(make *)"}, "make test && npm install", tools.Ask},
		{[]string{"allow", "run_command(rm -rf build)"}, "rm -rf build", tools.Allow},
		{[]string{"allow", "run_command(cp *)"}, "cp a /tmp/b", tools.Ask},                 // outside the workspace: fixed
		{[]string{"allow", "run_command(git *)"}, "git -c core.pager=less log", tools.Ask}, // git -c: fixed
		{[]string{"ask", "run_command(ls *)"}, "echo hi; ls -la", tools.Ask},
		{[]string{"ask", "run_command(ls *)"}, "echo hi", tools.Allow},
		{[]string{"deny", "run_command(curl *)"}, "ls | xargs curl -s https://x", tools.Deny},
		{[]string{"allow", "run_command"}, "make test; rm -rf src", tools.Allow},
		{[]string{"allow", "risk:execute"}, "npm test", tools.Allow},
		{nil, "ls -la | wc -l", tools.Allow},
		{nil, "make test", tools.Allow}, // S11: the project's own build runs staged, unasked
		{nil, "npm install", tools.Ask},
	} {
		p := policyWith(t, tools.ProfileEditor, c.rules...)
		if got, rule := decideCommand(t, p, c.cmd); got != c.want {
			t.Errorf("%v: %q = %s (%s), want %s", c.rules, c.cmd, got, rule, c.want)
		}
	}
	// In CI commands are off unless a rule allows them; a read-only tail
	// of a line whose command a rule allows still runs.
	ci := policyWith(t, tools.ProfileCI, "allow", "run_command(go test *)")
	for cmd, want := range map[string]tools.Decision{"go test ./...": tools.Allow, "go test ./... | tail -3": tools.Allow,
		"ls": tools.Deny, "go test ./... ; make": tools.Deny, "go test ./... && npm test": tools.Deny} {
		if got, rule := decideCommand(t, ci, cmd); got != want {
			t.Errorf("ci: %q = %s (%s), want %s", cmd, got, rule, want)
		}
	}
}

// TestRunCommand_E15_ControlWrites: a command line that writes an E15
// control file is flagged Control for the gateway, and an allow rule
// naming the command does not lift it; writing .agentls/** is denied.
func TestRunCommand_E15_ControlWrites(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Root: root}
	for cmd, want := range map[string]bool{"echo x > .vscode/tasks.json": true, "cp a .envrc": true,
		"echo x > notes.txt": false, "ls": false} {
		raw, _ := json.Marshal(map[string]string{"command": cmd})
		v, _ := RunCommand().Check(context.Background(), env, raw)
		if v.Control != want {
			t.Errorf("%q: Control = %v, want %v", cmd, v.Control, want)
		}
	}
	p := policyWith(t, tools.ProfileEditor, "allow", "run_command(cp *)", "allow", "run_command(echo *)")
	for cmd, want := range map[string]tools.Decision{"cp a .envrc": tools.Ask, "cp a b": tools.Allow,
		"echo x > .vscode/tasks.json": tools.Ask, "cp a .agentls/policy.json": tools.Deny} {
		if got, rule := decideCommand(t, p, cmd); got != want {
			t.Errorf("%q = %s (%s), want %s", cmd, got, rule, want)
		}
	}
}
