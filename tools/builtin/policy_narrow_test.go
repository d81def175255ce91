package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
)

// policyFiles writes a user file and a project file (as
// <root>/.agentls/policy.json) and loads them for profile.
func policyFiles(t *testing.T, profile, user, project string) (*tools.Policy, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	userFile := filepath.Join(base, "user.json")
	writeFile(t, userFile, user)
	projectFile := filepath.Join(root, filepath.FromSlash(tools.ProjectPolicyFile))
	if project != "" {
		writeFile(t, projectFile, project)
	}
	p, err := tools.LoadPolicy(profile, userFile, projectFile)
	if err != nil {
		t.Fatal(err)
	}
	return p, root
}

// vetWith is the gateway's verdict on one call under p in root.
func vetWith(t *testing.T, p *tools.Policy, root, tool string, args any) tools.Verdict {
	t.Helper()
	reg := tools.NewRegistry()
	reg.MustRegister(All()...)
	b, _ := json.Marshal(args)
	return mustGateway(t, reg, &tools.GatewayOptions{Root: root, Policy: p, Allowed: reg.Names()}).Vet(t.Context(), tool, string(b))
}

func warned(t *testing.T, p *tools.Policy, sub string) {
	t.Helper()
	if !strings.Contains(strings.Join(p.Warnings, "\n"), sub) {
		t.Errorf("no warning with %q:\n%s", sub, strings.Join(p.Warnings, "\n"))
	}
}

// TestLoadPolicy_T20_ProjectCannotWidenNetwork reproduces issue 10 item 4:
// with a user allow rule for http_fetch, a host only the project listed
// became allowed. The project's list now narrows the user's to the
// intersection.
func TestLoadPolicy_T20_ProjectCannotWidenNetwork(t *testing.T) {
	user := `{"allow": ["http_fetch"], "http": {"allow": ["https://api.github.com", "https://pkg.go.dev"]}}`
	p, root := policyFiles(t, tools.ProfileEditor, user,
		`{"http": {"allow": ["https://evil.example", "https://api.github.com/repos/*"]}}`)
	for url, want := range map[string]tools.Decision{
		"https://evil.example/x":         tools.Deny, // only the project lists it
		"https://api.github.com/repos/x": tools.Allow,
		"https://api.github.com/users/x": tools.Deny, // the project narrowed the user's host
		"https://pkg.go.dev/fmt":         tools.Deny, // the project left it out
	} {
		if v := vetWith(t, p, root, "http_fetch", map[string]string{"url": url}); v.Decision != want {
			t.Errorf("%s = %s (%s), want %s", url, v.Decision, v.Rule, want)
		}
	}
	// No user allowlist: a project cannot turn the network on.
	p, root = policyFiles(t, tools.ProfileEditor, `{"allow": ["http_fetch"]}`, `{"http": {"allow": ["https://evil.example"]}}`)
	if v := vetWith(t, p, root, "http_fetch", map[string]string{"url": "https://evil.example/"}); v.Decision != tools.Deny || p.HTTP != nil {
		t.Errorf("project turned the network on: %+v, %+v", v, p.HTTP)
	}
	warned(t, p, "cannot turn it on")
	// Other http settings: reaching further is ignored, narrowing applies.
	p, _ = policyFiles(t, tools.ProfileEditor, `{"http": {"allow": ["https://api.github.com"], "max_bytes": 1000, "timeout_seconds": 20}}`,
		`{"http": {"methods": ["POST"], "allow_http": true, "allow_addrs": ["10.0.0.0/8"], "headers": {"https://api.github.com": {"X": "y"}},
		  "max_bytes": 5000, "timeout_seconds": 60}}`)
	if h := p.HTTP; len(h.Methods) != 0 || h.AllowHTTP || len(h.AllowAddrs) != 0 || len(h.Headers) != 0 || h.MaxBytes != 1000 || h.Timeout != 20*time.Second {
		t.Errorf("project widened http: %+v", h)
	}
	warned(t, p, "http.max_bytes ignored")
	warned(t, p, "http.timeout_seconds ignored")
	p, _ = policyFiles(t, tools.ProfileEditor, `{"http": {"allow": ["https://api.github.com"]}}`, `{"http": {"max_bytes": 100, "timeout_seconds": 5}}`)
	if h := p.HTTP; h.MaxBytes != 100 || h.Timeout != 5*time.Second {
		t.Errorf("project could not narrow http limits: %+v", h)
	}
}

// TestLoadPolicy_T20_ProjectCannotWidenAnything tries every other field of
// the project file that could reach further than the user's policy.
func TestLoadPolicy_T20_ProjectCannotWidenAnything(t *testing.T) {
	user := `{"allow": ["run_command(make *)", "write_file(src/**)"], "deny": ["run_command(git push *)"],
		"shell": {"commands": [{"name": "git", "args": ["push"], "decision": "deny"}, {"name": "make", "decision": "allow"}]}}`
	project := `{"allow": ["run_command(*)", "write_file(**)", "http_fetch"],
		"ask": ["run_command(git push *)"], "deny": ["write_file(src/gen/**)"],
		"risks": {"execute": "allow", "write": "allow"},
		"shell": {"timeout_seconds": 7200, "network": true,
		          "commands": [{"name": "rm", "decision": "allow"}, {"name": "git", "decision": "ask"},
		                       {"name": "make", "decision": "deny"}, {"name": "curl", "decision": "maybe"}]},
		"approval_timeout_seconds": 3600,
		"profiles": {"editor": {"allow": ["read_file"], "risks": {"network": "allow"}}}}`
	p, root := policyFiles(t, tools.ProfileEditor, user, project)
	if p.CommandTimeout > tools.DefaultCommandTimeout || p.CommandNetwork || p.ApprovalTimeout > tools.DefaultApprovalTimeout {
		t.Errorf("project lengthened limits: timeout %s, network %v, approval %s", p.CommandTimeout, p.CommandNetwork, p.ApprovalTimeout)
	}
	for r, d := range p.Risks {
		if want := tools.DefaultPolicy(tools.ProfileEditor).Risks[r]; d != want {
			t.Errorf("risk %s = %s, want %s", r, d, want)
		}
	}
	for _, r := range p.Rules {
		if r.Source == "project" && r.Decision == tools.Allow {
			t.Errorf("project allow rule kept: %s", r.Text)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want tools.Decision
	}{
		{"run_command", map[string]any{"command": "git push origin main"}, tools.Deny}, // the user's deny; the project's ask does not lift it
		{"run_command", map[string]any{"command": "make build"}, tools.Deny},           // the project's shell deny beats the user's allow
		{"run_command", map[string]any{"command": "git status"}, tools.Ask},            // the project's shell ask
		{"run_command", map[string]any{"command": "rm -rf build"}, tools.Ask},          // the project's shell allow is ignored
		{"write_file", map[string]any{"path": "src/a.go", "content": "x"}, tools.Allow},
		{"write_file", map[string]any{"path": "src/gen/a.go", "content": "x"}, tools.Deny},
		{"write_file", map[string]any{"path": "docs/a.md", "content": "x"}, tools.Ask}, // the project's write_file(**) is ignored
		{"http_fetch", map[string]any{"url": "https://api.github.com/"}, tools.Deny},   // no network for the user
	} {
		if v := vetWith(t, p, root, c.tool, c.args); v.Decision != c.want {
			t.Errorf("%s %v = %s (%s), want %s", c.tool, c.args, v.Decision, v.Rule, c.want)
		}
	}
	for _, w := range []string{`allow rule "run_command(*)" ignored`, "shell.timeout_seconds ignored", "shell.network ignored",
		`shell command rule "rm" ignored`, `shell command rule "curl" ignored`, "approval_timeout_seconds ignored",
		"risk execute: allow ignored", `allow rule "read_file" ignored`} {
		warned(t, p, w)
	}
	// A shorter timeout is a narrowing and applies.
	p, _ = policyFiles(t, tools.ProfileEditor, `{}`, `{"shell": {"timeout_seconds": 30}, "approval_timeout_seconds": 60}`)
	if p.CommandTimeout != 30*time.Second || p.ApprovalTimeout != time.Minute {
		t.Errorf("project could not shorten: %s, %s", p.CommandTimeout, p.ApprovalTimeout)
	}
}

// TestDecide_T20_ProjectRulesOnlyNarrow: a project ask rule does not lift a
// default deny (CI runs no commands), and a project allow rule that got
// into the policy some other way counts for nothing.
func TestDecide_T20_ProjectRulesOnlyNarrow(t *testing.T) {
	run := &tools.Tool{Name: "run_command", Risk: tools.RiskExecute}
	write := &tools.Tool{Name: "write_file", Risk: tools.RiskWrite}
	ci := tools.DefaultPolicy(tools.ProfileCI)
	ci.Rules = []tools.Rule{mustRule(t, "run_command(*)", tools.Ask, "project")}
	if d, rule := ci.Decide(run, &tools.Verdict{Decision: tools.Allow, Subject: "make"}); d != tools.Deny {
		t.Errorf("project ask lifted CI's deny: %s (%s)", d, rule)
	}
	ed := tools.DefaultPolicy(tools.ProfileEditor)
	ed.Rules = []tools.Rule{mustRule(t, "write_file(**)", tools.Allow, "project"), mustRule(t, "write_file(src/**)", tools.Allow, "user"),
		mustRule(t, "write_file(src/gen/**)", tools.Ask, "project")}
	for subject, want := range map[string]tools.Decision{"docs/a": tools.Ask, "src/a": tools.Allow, "src/gen/a": tools.Ask} {
		if d, rule := ed.Decide(write, &tools.Verdict{Decision: tools.Allow, Subject: subject}); d != want {
			t.Errorf("%s = %s (%s), want %s", subject, d, rule, want)
		}
	}
}

func mustRule(t *testing.T, text string, d tools.Decision, source string) tools.Rule {
	t.Helper()
	r, err := tools.ParseRule(text, d, source)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLoadPolicy_T20_HostileProjectFile reproduces issue 10 item 8: the
// project file as a symlink to /dev/zero ate memory, as a FIFO blocked
// forever, as a symlink outside echoed the target's first byte. Each is
// now a prompt error that quotes nothing of the content.
func TestLoadPolicy_T20_HostileProjectFile(t *testing.T) {
	const secret = "ghp_SECRETTOKEN"
	cases := map[string]func(t *testing.T, name, outside string){
		"symlink to /dev/zero": func(t *testing.T, name, _ string) { mustDo(t, os.Symlink("/dev/zero", name)) },
		"FIFO":                 func(t *testing.T, name, _ string) { mkfifo(t, name) },
		"symlink outside": func(t *testing.T, name, outside string) {
			writeFile(t, outside, `{"ask": ["`+secret+`"]}`) // valid: it must not be read at all
			mustDo(t, os.Symlink(outside, name))
		},
		"directory": func(t *testing.T, name, _ string) { mustDo(t, os.MkdirAll(name, 0o755)) },
		"too large": func(t *testing.T, name, _ string) {
			writeFile(t, name, `{"deny": []}`+strings.Repeat(" ", 1<<20))
		},
		"invalid JSON with a secret byte": func(t *testing.T, name, _ string) {
			writeFile(t, name, "{\"deny\": [\n  "+secret+"]}")
		},
		"unknown field that looks like a secret": func(t *testing.T, name, _ string) {
			writeFile(t, name, `{"`+secret+`-x": 1}`)
		},
		"wrong type": func(t *testing.T, name, _ string) {
			writeFile(t, name, `{"risks": {"`+secret+`-x": 5}}`)
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			file := filepath.Join(base, "ws", filepath.FromSlash(tools.ProjectPolicyFile))
			mustDo(t, os.MkdirAll(filepath.Dir(file), 0o755))
			outside := filepath.Join(base, "elsewhere", "secret.json")
			setup(t, file, outside)
			done := make(chan error, 1)
			go func() {
				_, err := tools.LoadPolicy(tools.ProfileEditor, "", file)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("LoadPolicy blocked")
			}
			if err == nil {
				t.Fatal("hostile project file accepted")
			}
			msg := err.Error()
			if strings.Contains(msg, "ghp") || strings.Contains(msg, "SECRET") || strings.Contains(msg, "'") || strings.Contains(msg, "elsewhere") || strings.Contains(msg, "/dev/zero") {
				t.Errorf("error quotes content or target: %s", msg)
			}
			if !strings.Contains(msg, ".agentls/policy.json") {
				t.Errorf("error does not name the file: %s", msg)
			}
		})
	}
	// The error says where a syntax error is.
	base := t.TempDir()
	file := filepath.Join(base, "ws", filepath.FromSlash(tools.ProjectPolicyFile))
	writeFile(t, file, "{\"deny\": [\n  x]}")
	if _, err := tools.LoadPolicy(tools.ProfileEditor, "", file); err == nil || !strings.Contains(err.Error(), "line 2, column 3") {
		t.Errorf("syntax error without line and column: %v", err)
	}
	// A typo in a key is named, so the user can fix it.
	writeFile(t, file, `{"dney": []}`)
	if _, err := tools.LoadPolicy(tools.ProfileEditor, "", file); err == nil || !strings.Contains(err.Error(), `unknown field "dney"`) {
		t.Errorf("unknown field not named: %v", err)
	}
}

// TestLoadPolicy_T20_UserFileFIFO: the user's file is read without
// blocking too (it may be a symlink elsewhere, which is fine).
func TestLoadPolicy_T20_UserFileFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "policy.json")
	mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() { _, err := tools.LoadPolicy(tools.ProfileEditor, fifo, ""); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("FIFO accepted")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadPolicy blocked on a FIFO")
	}
	real := filepath.Join(dir, "dotfiles", "agentls.json")
	writeFile(t, real, `{"deny": ["risk:mcp"]}`)
	link := filepath.Join(dir, "link.json")
	mustDo(t, os.Symlink(real, link))
	if p, err := tools.LoadPolicy(tools.ProfileEditor, link, ""); err != nil || len(p.Rules) != 1 {
		t.Errorf("symlinked user file: %v, %+v", err, p)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
