package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/shell"
)

// scopeApprover answers "always" at its scope (approve once without
// one) and records what it was offered.
type scopeApprover struct {
	scope   Scope
	mu      sync.Mutex // guards offered
	offered [][]Scope
}

func (a *scopeApprover) Approve(_ context.Context, req *ApprovalRequest) (ApprovalResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.offered = append(a.offered, req.Scopes)
	if a.scope == "" {
		return ApprovalResponse{Answer: AnswerApprove}, nil
	}
	return ApprovalResponse{Answer: AnswerAlways, Scope: a.scope}, nil
}

func (a *scopeApprover) asked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.offered)
}

// askedTool is an execute tool whose check returns v (the policy asks).
func askedTool(v Verdict) *Tool {
	return &Tool{Name: "run_command", Description: "x", Risk: RiskExecute, Schema: json.RawMessage(`{"type":"object"}`),
		Check: func(context.Context, *Env, json.RawMessage) (*Verdict, error) { c := v; return &c, nil },
		Run:   func(context.Context, *Env, json.RawMessage) (Result, error) { return Result{Content: "ran"}, nil },
	}
}

// allowCall makes one call in a new gateway (a new run, as after a
// restart) over the store in stateDir, in root and session.
func allowCall(t *testing.T, v Verdict, stateDir, root, session string, ap Approver) {
	t.Helper()
	reg := NewRegistry()
	reg.MustRegister(askedTool(v))
	g, err := NewGateway(reg, &GatewayOptions{Root: root, SessionID: session, Approver: ap, Allowed: []string{"run_command"},
		Allowances: OpenAllowances(AllowStorePath(stateDir), nil)})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := g.Call(t.Context(), "run_command", `{}`); err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
}

// E21 (issue 28): each scope of "always" reaches exactly as far as it
// says, for the same normalized call only, across new gateways reading
// the same store (a restart); the store lives in the state directory,
// nothing is written into the workspace.
func TestAllowances_E21_ScopesReachAsFarAsTheySay(t *testing.T) {
	ws1, ws2 := realRoot(t.TempDir()), realRoot(t.TempDir())
	call := Verdict{Decision: Ask, Subject: "make test", Rule: "test"}
	other := Verdict{Decision: Ask, Subject: "make  test", Rule: "test"}
	for _, tc := range []struct {
		scope               Scope
		sameSess, otherSess bool // asked again in the same session, in another session of ws1
		otherWS             bool // asked again in another workspace
	}{
		{ScopeSession, false, true, true},
		{ScopeWorkspace, false, false, true},
		{ScopeEverywhere, false, false, false},
	} {
		state := t.TempDir()
		ap := &scopeApprover{scope: tc.scope}
		allowCall(t, call, state, ws1, "s1", ap)
		if !slices.Equal(ap.offered[0], AllScopes) {
			t.Fatalf("%s: offered %v, want %v", tc.scope, ap.offered[0], AllScopes)
		}
		for _, step := range []struct {
			name, root, sess string
			v                Verdict
			again            bool
		}{
			{"same session", ws1, "s1", call, tc.sameSess},
			{"other session", ws1, "s2", call, tc.otherSess},
			{"other workspace", ws2, "s3", call, tc.otherWS},
			{"differently spelled call", ws1, "s1", other, true},
		} {
			once := &scopeApprover{}
			allowCall(t, step.v, state, step.root, step.sess, once)
			if asked := once.asked() > 0; asked != step.again {
				t.Errorf("%s, %s: asked %v, want %v", tc.scope, step.name, asked, step.again)
			}
		}
		if entries, _ := os.ReadDir(ws1); len(entries) != 0 {
			t.Errorf("%s: the workspace got files: %v", tc.scope, entries)
		}
	}
}

// writeGrants writes a store in stateDir granting subject everywhere.
func writeGrants(t *testing.T, stateDir string, subjects ...string) {
	t.Helper()
	f := allowFile{Version: allowVersion}
	for _, s := range subjects {
		f.Grants = append(f.Grants, Grant{ID: "x" + s, Scope: ScopeEverywhere, Tool: "run_command", Subject: s})
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(AllowStorePath(stateDir), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// E21, E15 (issue 28): "always" is never offered, honoured or kept for a
// control file or a command with a part no rule can lift, even when the
// store holds a grant for that very call; a store inside the workspace
// (a repository granting itself) and a damaged store grant nothing.
func TestAllowances_E21_NeverAlwaysAndFailClosed(t *testing.T) {
	ws := realRoot(t.TempDir())
	fixed := []shell.Command{{Kind: shell.KindCommand, Text: "go test -exec ./x", Decision: Ask, Fixed: Ask, FixedRule: "shell.exec_flag"}}
	for _, tc := range []struct {
		name  string
		v     Verdict
		state string
		file  string // replaces the store's content when set
		want  []Scope
	}{
		{"control file", Verdict{Decision: Ask, Subject: ".vscode/settings.json", Control: true}, t.TempDir(), "", nil},
		{"fixed command part", Verdict{Decision: Ask, Subject: "go test -exec ./x", Commands: fixed}, t.TempDir(), "", nil},
		{"store in the workspace", Verdict{Decision: Ask, Subject: "make"}, filepath.Join(ws, ".state"), "", []Scope{ScopeSession}},
		{"damaged store", Verdict{Decision: Ask, Subject: "make"}, t.TempDir(), `{"version":1,"grants":[{"id":"x","scope":"everywh`, AllScopes},
		{"newer store", Verdict{Decision: Ask, Subject: "make"}, t.TempDir(), `{"version":2,"grants":[{"id":"x","scope":"everywhere","tool":"run_command","subject":"make"}]}`, AllScopes},
	} {
		writeGrants(t, tc.state, tc.v.Subject)
		if tc.file != "" {
			if err := os.WriteFile(AllowStorePath(tc.state), []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 2 { // the second call after an "always everywhere" answer
			ap := &scopeApprover{scope: ScopeEverywhere}
			allowCall(t, tc.v, tc.state, ws, "s1", ap)
			if ap.asked() != 1 {
				t.Fatalf("%s, call %d: asked %d times", tc.name, i+1, ap.asked())
			}
			if !slices.Equal(ap.offered[0], tc.want) {
				t.Errorf("%s, call %d: offered %v, want %v", tc.name, i+1, ap.offered[0], tc.want)
			}
			if len(tc.want) == 1 { // kept in memory of that gateway's Allowances only
				break
			}
		}
	}
}

// E21: a store that is not a regular file (a FIFO, a directory) is
// damaged: it grants nothing and never blocks a question.
func TestAllowStore_E21_NotARegularFile(t *testing.T) {
	for _, mk := range []func(string) error{
		func(p string) error { return os.Mkdir(p, 0o700) },
		func(p string) error { return unix.Mkfifo(p, 0o600) },
	} {
		state := t.TempDir()
		if err := mk(AllowStorePath(state)); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenAllowStore(AllowStorePath(state)).Grants(); !errors.Is(err, ErrAllowStoreDamaged) {
			t.Errorf("Grants() = %v, want ErrAllowStoreDamaged", err)
		}
	}
}
