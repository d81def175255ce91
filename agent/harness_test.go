package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// testKey is distinctive so that tests can assert it never leaks (A5).
const testKey = "sk-agentls-TEST-7d1e4b20c9a3-do-not-leak"

// diskWorkspace reads workspace files from the disk.
type diskWorkspace struct{ root string }

func (w diskWorkspace) ReadFile(_ context.Context, rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)))
}

// workspace makes a small workspace and returns its resolved root.
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"main.go":      "package main\n\nfunc main() { println(\"hi\") }\n",
		"README.md":    "# demo\n",
		"pkg/util.go":  "package pkg\n\n// Util is useful.\nfunc Util() int { return 42 }\n",
		"pkg/other.go": "package pkg\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// harness is one run of the real engine: the openai adapter talking to an
// llmtest script over in-memory pipes, and a real tools.Gateway over a
// temporary workspace. It is built inside a synctest bubble, so backoffs,
// stalls and timeouts take no real time.
type harness struct {
	t      *testing.T
	root   string
	srv    *llmtest.PipeServer
	model  agent.Model
	reg    *tools.Registry
	opts   *agent.RunOptions
	mopts  *openai.Options
	logs   *bytes.Buffer
	mu     sync.Mutex // guards events
	events []agent.Event
}

// newHarness starts a harness for a JSON-lines script. Call it inside
// synctest.Test; the server is closed by t.Cleanup, inside the bubble.
func newHarness(t *testing.T, root, script string) *harness {
	t.Helper()
	s, err := llmtest.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: root, srv: llmtest.NewPipeServer(s), logs: &bytes.Buffer{}}
	t.Cleanup(h.srv.Close)
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: h.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.mopts = &openai.Options{BaseURL: h.srv.URL, APIKey: testKey, Model: "test-model",
		HTTPClient: h.srv.Client(), Logger: log, StallTimeout: 5 * time.Second}
	h.reg = tools.NewRegistry()
	h.reg.MustRegister(builtin.All()...)
	h.opts = &agent.RunOptions{
		Tools: h.runner(agent.ModePlan.Tools(false)), Mode: agent.ModePlan,
		Task:     prompts.TaskData{Instruction: "Look at main.go."},
		Reporter: agent.ReporterFunc(h.report), Logger: log,
		NewRunner: func(allowed []string) agent.ToolRunner { return h.runner(allowed) },
	}
	return h
}

func (h *harness) runner(allowed []string) *tools.Gateway {
	g, err := tools.NewGateway(h.reg, &tools.GatewayOptions{Root: h.root, Workspace: diskWorkspace{h.root},
		Allowed: allowed, ReadOnly: true, Policy: tools.DefaultPolicy(tools.ProfileHeadless)})
	if err != nil {
		panic(err) // only run tools can fail, and there are none
	}
	return g
}

func (h *harness) report(e agent.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

// run builds the model and runs the agent.
func (h *harness) run(ctx context.Context) *agent.Outcome {
	h.t.Helper()
	if h.model == nil {
		m, err := openai.New(h.mopts)
		if err != nil {
			h.t.Fatal(err)
		}
		h.model = m
	}
	h.opts.Model = h.model
	return agent.Run(ctx, h.opts)
}

// kinds returns "kind:code" for the events of the given kinds.
func (h *harness) kinds(ks ...agent.EventKind) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		if slices.Contains(ks, e.Kind) {
			out = append(out, string(e.Kind)+":"+e.Code)
		}
	}
	return out
}

// find returns the events of kind k with code.
func (h *harness) find(k agent.EventKind, code string) []agent.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []agent.Event
	for _, e := range h.events {
		if e.Kind == k && (code == "" || e.Code == code) {
			out = append(out, e)
		}
	}
	return out
}

// requests returns the bodies the server received, as strings.
func (h *harness) requests() []string {
	var out []string
	for _, r := range h.srv.Requests() {
		out = append(out, string(r))
	}
	return out
}

// noLeak asserts that the key appears nowhere: outcome, events, logs.
func (h *harness) noLeak(out *agent.Outcome) {
	h.t.Helper()
	texts := []string{out.Summary, h.logs.String()}
	if out.Err != nil {
		texts = append(texts, out.Err.Error())
	}
	h.mu.Lock()
	for _, e := range h.events {
		texts = append(texts, fmt.Sprintf("%+v", e))
	}
	h.mu.Unlock()
	for _, s := range texts {
		if strings.Contains(s, testKey) || strings.Contains(s, testKey[10:]) {
			h.t.Fatalf("the API key leaked: %q", s)
		}
	}
}

// line is the fault-matrix line of a run.
func (h *harness) line(out *agent.Outcome, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", out.Status)
	if out.Incomplete {
		b.WriteString(" (partial)")
	}
	if out.Err != nil {
		fmt.Fprintf(&b, " [%s]", clipText(out.Err.Error(), 100))
	}
	fmt.Fprintf(&b, "; %d requests", len(h.srv.Requests()))
	var steps []string
	for _, s := range out.Steps {
		st := s.Tool
		if s.Code != "" {
			st += "=" + s.Code
		}
		steps = append(steps, st)
	}
	if len(steps) > 0 {
		fmt.Fprintf(&b, "; tools %s", strings.Join(steps, ","))
	}
	var sub []string
	for _, e := range h.find(agent.EventToolResult, "") {
		if e.Depth > 0 {
			st := e.Tool
			if e.Code != "" {
				st += "=" + e.Code
			}
			sub = append(sub, st)
		}
	}
	if len(sub) > 0 {
		fmt.Fprintf(&b, "; sub-agent tools %s", strings.Join(sub, ","))
	}
	if ev := h.kinds(agent.EventRetry, agent.EventWarning, agent.EventRepair, agent.EventCompaction, agent.EventInput); len(ev) > 0 {
		fmt.Fprintf(&b, "; events %s", strings.Join(ev, ","))
	}
	if elapsed > 0 {
		fmt.Fprintf(&b, "; fake time %s", elapsed.Round(time.Millisecond))
	}
	return b.String()
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// lockedWriter serializes writes to a buffer.
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
