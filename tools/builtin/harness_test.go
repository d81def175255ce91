package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
)

// fakeWorkspace reads the disk, preferring an overlay of unsaved buffers.
// Reading a FIFO through it blocks, as a naive implementation would.
type fakeWorkspace struct {
	root    string
	mu      sync.Mutex // guards overlay and reads
	overlay map[string]string
	reads   []string
}

func (w *fakeWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	w.mu.Lock()
	w.reads = append(w.reads, rel)
	s, ok := w.overlay[rel]
	w.mu.Unlock()
	if ok {
		return []byte(s), nil
	}
	return os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)))
}

// fakeProposer records proposed changes and answers with a scripted outcome.
type fakeProposer struct {
	mu      sync.Mutex // guards changes
	changes []*tools.FileChange
	outcome *tools.EditOutcome
	err     error
}

func (p *fakeProposer) Propose(ctx context.Context, c *tools.FileChange) (*tools.EditOutcome, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changes = append(p.changes, c)
	return p.outcome, p.err
}

// fakeSink records findings, or refuses them with err.
type fakeSink struct {
	mu  sync.Mutex // guards got
	got []tools.Finding
	err error
}

func (s *fakeSink) Report(ctx context.Context, f tools.Finding) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.got = append(s.got, f)
	return nil
}

// harness is a workspace with a sibling "outside" directory, fakes for the
// editor side, and a registry of the built-ins.
type harness struct {
	base, root, outside string
	ws                  *fakeWorkspace
	edits               *fakeProposer
	sink                *fakeSink
	reg                 *tools.Registry
	reads               *tools.ReadTracker // nil: no stale-file check (T17)
	noEdits, noFindings bool
}

const mainGo = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"

func newHarness(t *testing.T) *harness {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{base: base, root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	h.ws = &fakeWorkspace{root: h.root, overlay: map[string]string{}}
	h.edits = &fakeProposer{outcome: &tools.EditOutcome{Applied: true, Saved: true,
		Hunks: []tools.HunkOutcome{{Index: 0, Lines: "4-4", Applied: true}}}}
	h.sink = &fakeSink{}
	h.reg = tools.NewRegistry()
	h.reg.MustRegister(All()...)
	h.write(t, "src/main.go", mainGo)
	h.write(t, "README.md", "# demo\n")
	h.write(t, ".git/config", "[core]\n")
	writeFile(t, filepath.Join(h.outside, "secret.txt"), "TOP SECRET token\n")
	return h
}

func (h *harness) write(t *testing.T, rel, content string) {
	t.Helper()
	writeFile(t, filepath.Join(h.root, filepath.FromSlash(rel)), content)
}

func (h *harness) symlink(t *testing.T, rel, target string) {
	t.Helper()
	target = strings.ReplaceAll(target, "{{OUTSIDE}}", h.outside)
	if err := os.Symlink(target, filepath.Join(h.root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) env() *tools.Env {
	env := &tools.Env{Root: h.root, Workspace: h.ws, Edits: h.edits, Findings: h.sink, Reads: h.reads, Exec: testExec}
	if h.noEdits {
		env.Edits = nil
	}
	if h.noFindings {
		env.Findings = nil
	}
	return env
}

// Sample tool sets, shaped like the runs of agent's mode table (which
// tests the real sets against the registry).
var (
	readTools  = []string{"read_file", "list_dir", "search"}
	writeTools = []string{"read_file", "list_dir", "search", "edit_file", "write_file", "run_command",
		"human_confirm", "sql_query", "calculator"}
)

// allTools offers every built-in.
var allTools = &tools.GatewayOptions{Allowed: slices.Concat(writeTools, []string{"report_finding"})}

// call runs one tool call through the gateway with all tools allowed.
func (h *harness) call(t *testing.T, name string, args any) tools.Result {
	t.Helper()
	return h.callWith(t, allTools, name, args)
}

// callWith runs one call through a Runner built with opts. args is raw
// JSON when it is a string. A call that blocks fails the test; no result
// may mention the host directories.
func (h *harness) callWith(t *testing.T, opts *tools.GatewayOptions, name string, args any) tools.Result {
	t.Helper()
	raw := rawArgs(t, args)
	type answer struct {
		res tools.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := newGateway(h.reg, h.env(), opts).Call(t.Context(), name, raw)
		done <- answer{res, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked", name)
	}
	if a.err != nil {
		t.Fatalf("%s: Go error %v", name, a.err)
	}
	if strings.Contains(a.res.Content, h.base) {
		t.Errorf("%s result leaks a host path: %s", name, a.res.Content)
	}
	return a.res
}

// rawArgs is args as JSON text: as it is when it is a string, else
// marshalled.
func rawArgs(t *testing.T, args any) string {
	t.Helper()
	if raw, ok := args.(string); ok {
		return raw
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantErr checks that res is a structured tool error (T11) with code and,
// unless field is "*", field.
func wantErr(t *testing.T, res tools.Result, code tools.Code, field string) tools.ToolError {
	t.Helper()
	var te tools.ToolError
	if err := json.Unmarshal([]byte(res.Content), &te); err != nil || !res.IsError {
		t.Fatalf("want %s error, got %+v", code, res)
	}
	if res.Code != code || te.Code != code {
		t.Fatalf("code = %s (%s); want %s", te.Code, te.Reason, code)
	}
	if field != "*" && te.Field != field {
		t.Errorf("field = %q (%s); want %q", te.Field, te.Reason, field)
	}
	if te.Reason == "" {
		t.Error("empty reason")
	}
	return te
}

// wantOK checks that res is not an error and returns its content.
func wantOK(t *testing.T, res tools.Result) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	return res.Content
}

func wantContains(t *testing.T, got string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("output does not contain %q:\n%s", s, got)
		}
	}
}

var errLineMissing = errors.New("line 99 does not exist in src/main.go (5 lines)")

// newGateway returns a gateway over reg for one run in env as it is (no
// policy limits applied), with the run options of o.
func newGateway(reg *tools.Registry, env *tools.Env, o *tools.GatewayOptions) *tools.Gateway {
	var c tools.GatewayOptions
	if o != nil {
		c = *o
	}
	c.Env = env
	g, err := tools.NewGateway(reg, &c)
	if err != nil {
		panic(err) // only run tools can fail, and these tests give none
	}
	return g
}
