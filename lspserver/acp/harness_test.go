package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/lspserver/acp"
	"github.com/agentls/agentls/sandbox/exec"
)

// TestMain lets the test binary be the sandbox's helper, for
// run_command, and fails the package when a test leaves goroutines
// behind: every Serve must have returned and every run ended.
func TestMain(m *testing.M) {
	exec.MaybeRunHelper()
	goleak.VerifyTestMain(m)
}

// wait bounds anything the agent should do promptly.
const wait = 60 * time.Second

// fixture is `agentls acp` in-process over pipes, with a scripted model,
// a workspace and the SDK's own client side.
type fixture struct {
	t     *testing.T
	root  string
	state string
	llm   *llmtest.Server
	conn  *sdk.ClientSideConnection
	cl    *testClient
	stop  func()
}

type setup struct {
	script string
	files  map[string]string
	caps   sdk.ClientCapabilities
	state  string // the state directory; "" makes one
	root   string // the workspace; "" makes one
	opts   func(*acp.Options)
}

func start(t *testing.T, s setup) *fixture {
	t.Helper()
	f := &fixture{t: t, root: s.root, state: s.state}
	if f.root == "" {
		f.root = t.TempDir()
	}
	if f.state == "" {
		f.state = t.TempDir()
	}
	for name, text := range s.files {
		p := filepath.Join(f.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := llmtest.ParseScript([]byte(s.script))
	if err != nil {
		t.Fatal(err)
	}
	f.llm = llmtest.NewServer(script)
	runner := exec.New(nil)
	o := &acp.Options{StateDir: f.state, Exec: runner, NewModel: func() (agent.Model, error) {
		return openai.New(&openai.Options{BaseURL: f.llm.URL, Model: "test", APIKey: "test"})
	}}
	if s.opts != nil {
		s.opts(o)
	}
	f.serve(o, s.caps, runner)
	return f
}

// serve starts the agent on pipes and connects the test client.
func (f *fixture) serve(o *acp.Options, caps sdk.ClientCapabilities, runner *exec.Runner) {
	t := f.t
	toAgent, agentIn := io.Pipe()
	agentOut, toClient := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var stop func()
	go func() {
		defer close(done)
		_ = acp.Serve(ctx, toAgent, toClient, o)
		toClient.Close()
	}()
	f.cl = newTestClient()
	open := make(chan struct{})
	f.conn = sdk.NewClientSideConnection(f.cl, agentIn, gatedReader{agentOut, open})
	f.conn.SetLogger(slog.New(slog.DiscardHandler))
	close(open)
	var once sync.Once
	f.stop = func() { once.Do(stop) }
	stop = func() {
		agentIn.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Error("Serve did not return")
		}
		runner.Close()
		f.llm.Close()
	}
	t.Cleanup(f.stop)
	resp, err := f.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: caps})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if !resp.AgentCapabilities.LoadSession {
		t.Errorf("initialize: loadSession = false, want true")
	}
}

// newSession starts a session in the workspace and sets its mode.
func (f *fixture) newSession(mode string) sdk.SessionId {
	f.t.Helper()
	resp, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: f.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		f.t.Fatalf("session/new: %v", err)
	}
	if mode != "" {
		if _, err := f.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: resp.SessionId,
			ModeId: sdk.SessionModeId(mode)}); err != nil {
			f.t.Fatalf("session/set_mode %s: %v", mode, err)
		}
	}
	return resp.SessionId
}

// prompt sends a text prompt and returns the answer.
func (f *fixture) prompt(sid sdk.SessionId, text string) (sdk.PromptResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return f.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

func (f *fixture) mustPrompt(sid sdk.SessionId, text string, want sdk.StopReason) {
	f.t.Helper()
	resp, err := f.prompt(sid, text)
	if err != nil {
		f.t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != want {
		f.t.Fatalf("stopReason = %q, want %q", resp.StopReason, want)
	}
}

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// lastRequest is the last request the model got, as text.
func (f *fixture) lastRequest() string {
	reqs := f.llm.Requests()
	if len(reqs) == 0 {
		return ""
	}
	return string(reqs[len(reqs)-1])
}

// testClient is the client side: it records every session/update and
// permission request, answers permissions with answer, and serves files
// from buffers when the fixture offers fs capabilities.
type testClient struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	perms   []sdk.RequestPermissionRequest
	writes  []sdk.WriteTextFileRequest
	buffers map[string]string // absolute path → text
	answer  func(sdk.RequestPermissionRequest) string
	refuse  bool // fs/write_text_file fails, as acpx's does without --approve-all
	changed chan struct{}
}

func newTestClient() *testClient {
	return &testClient{buffers: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (c *testClient) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *testClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	c.poke()
	return nil
}

func (c *testClient) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, r)
	answer := c.answer
	c.mu.Unlock()
	c.poke()
	pick := ""
	if answer != nil {
		pick = answer(r)
	}
	if pick == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(pick)}}}, nil
}

func (c *testClient) ReadTextFile(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if text, ok := c.buffers[r.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	b, err := os.ReadFile(r.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *testClient) WriteTextFile(_ context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, r)
	if c.refuse {
		return sdk.WriteTextFileResponse{}, sdk.NewInternalError(map[string]any{"details": "Permission denied for fs/write_text_file"})
	}
	c.buffers[r.Path] = r.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *testClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, fmt.Errorf("terminals are not offered")
}

func (c *testClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, fmt.Errorf("terminals are not offered")
}

func (c *testClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, fmt.Errorf("terminals are not offered")
}

func (c *testClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, fmt.Errorf("terminals are not offered")
}

func (c *testClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, fmt.Errorf("terminals are not offered")
}

// waitFor waits until ok holds for the updates so far.
func (c *testClient) waitFor(t *testing.T, what string, ok func([]sdk.SessionUpdate) bool) {
	t.Helper()
	deadline := time.After(wait)
	for {
		c.mu.Lock()
		got := ok(c.updates)
		c.mu.Unlock()
		if got {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("no %s in %d s", what, int(wait.Seconds()))
		}
	}
}

func (c *testClient) snapshot() ([]sdk.SessionUpdate, []sdk.RequestPermissionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionUpdate(nil), c.updates...), append([]sdk.RequestPermissionRequest(nil), c.perms...)
}

// messageText is the agent message chunks joined.
func messageText(us []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
		}
	}
	return b.String()
}

// toolCalls are the tool calls of the updates with their statuses in
// order, their kinds, titles, locations and content text.
type callView struct {
	kind     sdk.ToolKind
	title    string
	statuses []sdk.ToolCallStatus
	locs     []sdk.ToolCallLocation
	content  string
}

func toolCalls(us []sdk.SessionUpdate) (order []sdk.ToolCallId, calls map[sdk.ToolCallId]*callView) {
	calls = map[sdk.ToolCallId]*callView{}
	for _, u := range us {
		if s := u.ToolCall; s != nil {
			calls[s.ToolCallId] = &callView{kind: s.Kind, title: s.Title, statuses: []sdk.ToolCallStatus{s.Status}, locs: s.Locations}
			order = append(order, s.ToolCallId)
		}
		if s := u.ToolCallUpdate; s != nil {
			c := calls[s.ToolCallId]
			if c == nil {
				continue
			}
			if s.Status != nil {
				c.statuses = append(c.statuses, *s.Status)
			}
			if s.Title != nil {
				c.title = *s.Title
			}
			if s.Locations != nil {
				c.locs = s.Locations
			}
			for _, x := range s.Content {
				if x.Content != nil && x.Content.Content.Text != nil {
					c.content += x.Content.Content.Text.Text
				}
			}
		}
	}
	return order, calls
}

// gatedReader reads once open is closed: the SDK's connection reads at
// once, and its logger must be set first.
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

func t0() context.Context { return context.Background() }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
