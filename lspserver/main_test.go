package lspserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// TestMain fails the package when a test leaves goroutines behind: every
// Serve must have returned and every run ended.
func TestMain(m *testing.M) {
	mcptest.MaybeServe() // the test binary is also the MCP server of the tests (issue 26)
	goleak.VerifyTestMain(m)
}

// skipBug fails the test: it marks checks that once pinned server bugs
// (all fixed), which must never regress.
func skipBug(t *testing.T, msg string) {
	t.Helper()
	t.Error("regression: " + msg)
}

// wait is the default bound for anything the server should do promptly.
const wait = 30 * time.Second

// harness is one server with a workspace, a scripted model and a client.
type harness struct {
	t    *testing.T
	root string
	llm  *llmtest.Server
	c    *lsptest.Client
}

type setup struct {
	script   string            // llmtest JSON lines; "" means no model server
	files    map[string]string // workspace files
	caps     map[string]any    // client capabilities
	handlers map[string]lsptest.Handler
	opts     func(*lspserver.Options)
	noInit   bool
	// clientInfo is initialize's clientInfo; nil means VS Code, a client
	// whose change annotations the server trusts (E14).
	clientInfo map[string]any
}

// vsCode is the clientInfo VS Code sends.
var vsCode = map[string]any{"name": "Visual Studio Code", "version": "1.101.0"}

func newModelFunc(url string) func() (agent.Model, error) {
	return func() (agent.Model, error) {
		return openai.New(&openai.Options{BaseURL: url, Model: "test-model", MaxRetries: -1})
	}
}

func start(t *testing.T, s setup) *harness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range s.files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := &harness{t: t, root: root}
	opts := &lspserver.Options{LoadPolicy: questionsWithin(5 * time.Second), SaveTimeout: 2 * time.Second}
	if s.script != "" {
		script, err := llmtest.ParseScript([]byte(s.script))
		if err != nil {
			t.Fatal(err)
		}
		h.llm = llmtest.NewServer(script)
		t.Cleanup(h.llm.Close) // after the client's cleanup (LIFO)
		opts.NewModel = newModelFunc(h.llm.URL)
	}
	if s.opts != nil {
		s.opts(opts)
	}
	h.c = lsptest.New(t, &lsptest.Options{Server: opts, Handlers: s.handlers})
	if !s.noInit {
		params := lsptest.InitializeParams(root, s.caps)
		params["clientInfo"] = vsCode
		if s.clientInfo != nil {
			params["clientInfo"] = s.clientInfo
		}
		if _, err := h.c.Initialize(h.ctx(), params); err != nil {
			t.Fatalf("initialize: %v", err)
		}
	}
	return h
}

// questionsWithin loads the editor's default policy with an approval
// timeout of d, which bounds every question of a run.
func questionsWithin(d time.Duration) func(string) (*tools.Policy, error) {
	return func(string) (*tools.Policy, error) {
		p := tools.DefaultPolicy(tools.ProfileEditor)
		p.ApprovalTimeout = d
		return p, nil
	}
}

func (h *harness) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	h.t.Cleanup(cancel)
	return ctx
}

func (h *harness) path(rel string) string { return filepath.Join(h.root, filepath.FromSlash(rel)) }

func (h *harness) uri(rel string) string { return lsptest.FileURI(h.path(rel)) }

func (h *harness) read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.path(rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *harness) open(rel string, version int, text string) {
	h.t.Helper()
	err := h.c.Notify(h.ctx(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": h.uri(rel), "languageId": "go", "version": version, "text": text,
	}})
	if err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) changeAll(rel string, version int, text string) {
	h.t.Helper()
	err := h.c.Notify(h.ctx(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": h.uri(rel), "version": version},
		"contentChanges": []any{map[string]any{"text": text}},
	})
	if err != nil {
		h.t.Fatal(err)
	}
}

// run executes a command with one argument and decodes its result.
func (h *harness) run(name string, arg map[string]any) (*command.Result, error) {
	h.t.Helper()
	return h.c.ExecuteCommand(h.ctx(), name, arg)
}

func (h *harness) mustRun(name string, arg map[string]any) *command.Result {
	h.t.Helper()
	r, err := h.run(name, arg)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return r
}

// wireError returns err as a JSON-RPC error, failing the test otherwise.
func wireError(t *testing.T, err error) *jsonrpc2.Error {
	t.Helper()
	var we *jsonrpc2.Error
	if !errors.As(err, &we) {
		t.Fatalf("got error %v (%T), want a JSON-RPC error", err, err)
	}
	return we
}

// wantCode checks the wire code of err and returns its data.reason.
func wantCode(t *testing.T, err error, code jsonrpc2.Code) string {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want code %d", code)
	}
	we := wireError(t, err)
	if we.Code != code {
		t.Fatalf("got code %d (%q), want %d", we.Code, we.Message, code)
	}
	var d struct {
		Reason string `json:"reason"`
	}
	if len(we.Data) > 0 {
		_ = json.Unmarshal(we.Data, &d)
	}
	return d.Reason
}

// chatMessage is one message of a chat-completions request.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// modelRequest is a chat-completions request body as the model saw it.
type modelRequest struct {
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (h *harness) modelRequests() []modelRequest {
	h.t.Helper()
	var out []modelRequest
	for _, raw := range h.llm.Requests() {
		var r modelRequest
		if err := json.Unmarshal(raw, &r); err != nil {
			h.t.Fatalf("model request: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// toolResult returns the content of the tool message answering callID, as
// sent to the model in a later request.
func (h *harness) toolResult(callID string) string {
	h.t.Helper()
	for _, r := range h.modelRequests() {
		for _, m := range r.Messages {
			if m.Role == "tool" && m.ToolCallID == callID {
				return m.text()
			}
		}
	}
	h.t.Fatalf("no tool result for %s in %d model requests", callID, len(h.llm.Requests()))
	return ""
}

func (r modelRequest) toolNames() []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// readBack turns read_file output ("     1\tline" …) back into lines.
func readBack(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.IndexByte(l, '\t'); i >= 0 && strings.TrimSpace(l[:i]) != "" && !strings.HasPrefix(l, "(") {
			lines = append(lines, l[i+1:])
		}
	}
	return lines
}

// jsonLine renders v as one JSON value for a script line.
func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// clientCaps returns client capabilities: applyEdit with versioned
// document changes and file creation always; change annotations, the
// agentls/saveDocuments extension and work-done progress on request.
func clientCaps(annotations, saveDocuments, progress bool) map[string]any {
	we := map[string]any{"documentChanges": true, "resourceOperations": []string{"create"}}
	if annotations {
		we["changeAnnotationSupport"] = map[string]any{"groupsOnLabel": false}
	}
	caps := map[string]any{
		"workspace": map[string]any{"applyEdit": true, "workspaceEdit": we},
		"window":    map[string]any{"workDoneProgress": progress},
	}
	if saveDocuments {
		caps["experimental"] = map[string]any{"agentls": map[string]any{"saveDocuments": true}}
	}
	return caps
}

// fullCaps is a VS Code-like client with progress, with or without change
// annotations.
func fullCaps(annotations bool) map[string]any { return clientCaps(annotations, false, true) }

// question is a window/showMessageRequest as the tests read it.
type question struct {
	Message string                   `json:"message"`
	Actions []struct{ Title string } `json:"actions"`
}

// offers reports whether q offers the action titled title.
func (q question) offers(title string) bool {
	for _, a := range q.Actions {
		if a.Title == title {
			return true
		}
	}
	return false
}
