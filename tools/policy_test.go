package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseRule_T13 covers the rule forms users write and the ones that
// must be refused.
func TestParseRule_T13(t *testing.T) {
	ok := []string{"read_file", "*", "risk:network", "run_command(go test *)", "write_file(src/**)",
		"http_fetch(https://api.github.com/*)"}
	for _, s := range ok {
		if _, err := ParseRule(s, Allow, "user"); err != nil {
			t.Errorf("ParseRule(%q) = %v", s, err)
		}
	}
	bad := []string{"", "Run Command", "risk:everything", "run_command(go test", "write_file()", "../x(y)"}
	for _, s := range bad {
		if _, err := ParseRule(s, Allow, "user"); err == nil {
			t.Errorf("ParseRule(%q) accepted", s)
		}
	}
}

// TestRuleMatch_T13 pins the glob semantics: * stays inside a path
// segment for path patterns and matches anything in commands and URLs; **
// crosses directories.
func TestRuleMatch_T13(t *testing.T) {
	write := &Tool{Name: "write_file", Risk: RiskWrite}
	run := &Tool{Name: "run_command", Risk: RiskExecute}
	fetch := &Tool{Name: "http_fetch", Risk: RiskNetwork}
	cases := []struct {
		rule    string
		tool    *Tool
		subject string
		want    bool
	}{
		{"write_file(src/*)", write, "src/a.go", true},
		{"write_file(src/*)", write, "src/x/a.go", false},
		{"write_file(src/**)", write, "src/x/a.go", true},
		{"write_file(src/**)", write, "srcx/a.go", false},
		{"write_file(*.md)", write, "README.md", true},
		{"write_file(*.md)", write, "docs/a.md", false},
		{"run_command(go test *)", run, "go test ./...", true},
		{"run_command(go test *)", run, "go testx", false},
		{"run_command(go test *)", run, "go vet ./...", false},
		{"http_fetch(https://api.github.com/*)", fetch, "https://api.github.com/repos/a/b", true},
		{"http_fetch(https://api.github.com/*)", fetch, "https://api.github.com.evil.com/x", false},
		{"risk:network", fetch, "anything", true},
		{"risk:network", run, "anything", false},
		{"*", run, "x", true},
		{"write_file", run, "x", false},
	}
	for _, c := range cases {
		r, err := ParseRule(c.rule, Allow, "user")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.matches(c.tool, c.subject); got != c.want {
			t.Errorf("%s on %s %q = %v, want %v", c.rule, c.tool.Name, c.subject, got, c.want)
		}
	}
}

// TestDecide_T5_T14 pins how the tool's verdict, rules and risk defaults
// combine.
func TestDecide_T5_T14(t *testing.T) {
	run := &Tool{Name: "run_command", Risk: RiskExecute}
	read := &Tool{Name: "read_file", Risk: RiskRead}
	rules := func(p *Policy, list ...string) *Policy {
		for _, s := range list {
			d := Decision(strings.SplitN(s, " ", 2)[0])
			r, err := ParseRule(strings.SplitN(s, " ", 2)[1], d, "user")
			if err != nil {
				t.Fatal(err)
			}
			p.Rules = append(p.Rules, r)
		}
		return p
	}
	cases := []struct {
		name   string
		policy *Policy
		tool   *Tool
		check  Verdict
		want   Decision
	}{
		{"read allowed by default", DefaultPolicy(ProfileEditor), read, Verdict{Decision: Allow, Subject: "a.go"}, Allow},
		{"execute asked by default", DefaultPolicy(ProfileEditor), run, Verdict{Decision: Allow, Subject: "ls"}, Ask},
		{"execute off in ci (T14)", DefaultPolicy(ProfileCI), run, Verdict{Decision: Allow, Subject: "ls"}, Deny},
		{"safe command runs without asking (S5)", DefaultPolicy(ProfileEditor), run, Verdict{Decision: Allow, Safe: true, Subject: "ls"}, Allow},
		{"safe command still off in ci", DefaultPolicy(ProfileCI), run, Verdict{Decision: Allow, Safe: true, Subject: "ls"}, Deny},
		{"ask rule beats a safe command", rules(DefaultPolicy(ProfileEditor), "ask run_command(ls *)"), run, Verdict{Decision: Allow, Safe: true, Subject: "ls -la"}, Ask},
		{"tool deny is final", rules(DefaultPolicy(ProfileEditor), "allow run_command(*)"), run, Verdict{Decision: Deny, Subject: "rm -rf ~"}, Deny},
		{"allow rule lifts ask", rules(DefaultPolicy(ProfileEditor), "allow run_command(go test *)"), run, Verdict{Decision: Ask, Subject: "go test ./..."}, Allow},
		{"deny rule beats allow rule", rules(DefaultPolicy(ProfileEditor), "allow run_command(*)", "deny run_command(git push *)"), run, Verdict{Decision: Allow, Subject: "git push origin"}, Deny},
		{"ask rule beats allow rule", rules(DefaultPolicy(ProfileEditor), "allow read_file", "ask read_file(secrets/**)"), read, Verdict{Decision: Allow, Subject: "secrets/a"}, Ask},
		{"tool ask stays above default allow", DefaultPolicy(ProfileEditor), read, Verdict{Decision: Ask, Subject: "x"}, Ask},
		{"unknown decision fails closed", DefaultPolicy(ProfileEditor), read, Verdict{Decision: "maybe", Subject: "x"}, "maybe"},
	}
	for _, c := range cases {
		got, rule := c.policy.Decide(c.tool, &c.check)
		if got != c.want {
			t.Errorf("%s: Decide = %s (%s), want %s", c.name, got, rule, c.want)
		}
	}
	if !stricter("maybe", Ask) {
		t.Error("an unknown decision must rank as deny")
	}
}

// TestLoadPolicy_T13 covers the files: user and project merged, the
// project never loosening, bad rules skipped with warnings, invalid JSON
// refused, profiles, and the minimum HTTP allowlist form.
func TestLoadPolicy_T13(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user := write("user.json", `{"allow": ["run_command(go test *)", "bogus rule("], "deny": ["run_command(git push *)"],
		"risks": {"network": "deny"}, "profiles": {"ci": {"deny": ["risk:write"]}},
		"http": {"allow": ["https://api.github.com", "https://pkg.go.dev"]}}`)
	project := write("project.json", `{"allow": ["run_command(*)"], "ask": ["read_file(secrets/**)"],
		"risks": {"network": "allow", "execute": "deny"}}`)
	p, err := LoadPolicy(ProfileEditor, user, project)
	if err != nil {
		t.Fatal(err)
	}
	run := &Tool{Name: "run_command", Risk: RiskExecute}
	fetch := &Tool{Name: "http_fetch", Risk: RiskNetwork}
	read := &Tool{Name: "read_file", Risk: RiskRead}
	for _, c := range []struct {
		tool    *Tool
		subject string
		want    Decision
	}{
		{run, "go test ./...", Allow},  // the user's allow
		{run, "git push origin", Deny}, // the user's deny
		{run, "make", Deny},            // the project tightened execute
		{fetch, "https://x", Deny},     // the project could not loosen network
		{read, "secrets/key", Ask},     // the project's ask
		{read, "src/a.go", Allow},
	} {
		if got, rule := p.Decide(c.tool, &Verdict{Decision: Allow, Subject: c.subject}); got != c.want {
			t.Errorf("%s %q = %s (%s), want %s", c.tool.Name, c.subject, got, rule, c.want)
		}
	}
	warnings := strings.Join(p.Warnings, "\n")
	for _, w := range []string{"bogus rule(", `allow rule "run_command(*)" ignored`, "risk network: allow ignored"} {
		if !strings.Contains(warnings, w) {
			t.Errorf("warnings lack %q:\n%s", w, warnings)
		}
	}
	if p.HTTP == nil || len(p.HTTP.Allow) != 2 {
		t.Errorf("HTTP = %+v", p.HTTP)
	}
	ci, err := LoadPolicy(ProfileCI, user, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := ci.Decide(&Tool{Name: "write_file", Risk: RiskWrite}, &Verdict{Decision: Allow, Subject: "a"}); got != Deny {
		t.Errorf("ci profile write = %s, want deny", got)
	}
	if _, err := LoadPolicy(ProfileEditor, write("bad.json", `{"deny": [`), ""); err == nil {
		t.Error("invalid JSON accepted: its denies would be lost")
	}
	if _, err := LoadPolicy(ProfileEditor, write("unknown.json", `{"dney": ["*"]}`), ""); err == nil {
		t.Error("unknown field accepted: a typo would silently drop a deny")
	}
	if _, err := LoadPolicy(ProfileEditor, filepath.Join(dir, "missing.json"), ""); err != nil {
		t.Errorf("missing file: %v", err)
	}
}
