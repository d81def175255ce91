package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/llmtest"
)

// TestACPSessions_E20_AcrossFrontEnds: one session store for every
// front-end: a session `agentls exec` started is continued by ACP
// session/load (its history replayed, the model gets it), and a session
// ACP started is continued by `agentls exec --session`. Both commands
// run in-process as main runs them, with the user's config and state
// directory from the environment.
func TestACPSessions_E20_AcrossFrontEnds(t *testing.T) {
	model := llmtest.NewServer(mustScript(t, `
{"content":"answer one from exec"}
{"content":"answer two from acp"}
{"content":"answer three from acp"}
{"content":"answer four from exec"}
`))
	t.Cleanup(model.Close)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "k", "AGENTLS_MODEL": "m"}
	getenv := func(k string) string { return env[k] }

	first := execRun(t, getenv, "plan", "question one")
	c := startACP(t, getenv)
	if _, err := c.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sdk.SessionId(first), Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load of exec's session %s: %v", first, err)
	}
	if got := c.text(); !strings.Contains(got, "question one") || !strings.Contains(got, "answer one from exec") {
		t.Errorf("replay of exec's session = %q", got)
	}
	c.prompt(t, sdk.SessionId(first), "question two")
	if last := lastBody(model); !strings.Contains(last, "answer one from exec") {
		t.Errorf("ACP's continued run did not get exec's conversation: %s", last)
	}
	s, err := c.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c.prompt(t, s.SessionId, "question three")
	c.close()
	execRun(t, getenv, "exec", "--session", string(s.SessionId), "question four")
	if last := lastBody(model); !strings.Contains(last, "question three") || !strings.Contains(last, "answer three from acp") {
		t.Errorf("exec --session did not get ACP's conversation: %s", last)
	}
}

func mustScript(t *testing.T, s string) llmtest.Script {
	t.Helper()
	script, err := llmtest.ParseScript([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return script
}

func lastBody(m *llmtest.Server) string {
	reqs := m.Requests()
	if len(reqs) == 0 {
		return ""
	}
	return string(reqs[len(reqs)-1])
}

var sessionOf = regexp.MustCompile(`\(session ([0-9a-f]+), run `)

// execRun runs a headless command and returns the session it ran in.
func execRun(t *testing.T, getenv func(string) string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{args[0], "--approve=never"}, args[1:]...)
	if code := run(t.Context(), args, strings.NewReader(""), &out, &errb, getenv); code != 0 {
		t.Fatalf("agentls %v: exit %d\n%s\n%s", args, code, out.String(), errb.String())
	}
	m := sessionOf.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("agentls %v printed no session: %s", args, out.String())
	}
	return m[1]
}

// acpClient is `agentls acp` run in-process on pipes, with the SDK's
// client side; it keeps the text of the updates.
type acpClient struct {
	conn *sdk.ClientSideConnection
	in   *io.PipeWriter
	done chan int
	once sync.Once
	mu   sync.Mutex
	buf  strings.Builder
}

func startACP(t *testing.T, getenv func(string) string) *acpClient {
	toAgent, in := io.Pipe()
	out, fromAgent := io.Pipe()
	c := &acpClient{in: in, done: make(chan int, 1)}
	go func() {
		code := run(context.Background(), []string{"acp"}, toAgent, fromAgent, io.Discard, getenv)
		fromAgent.Close()
		c.done <- code
	}()
	c.conn = sdk.NewClientSideConnection(c, in, out)
	c.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(c.close)
	if _, err := c.conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *acpClient) close() {
	c.once.Do(func() {
		c.in.Close()
		<-c.done
	})
}

func (c *acpClient) prompt(t *testing.T, sid sdk.SessionId, text string) {
	t.Helper()
	r, err := c.conn.Prompt(t.Context(), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt %q: %v %v", text, r.StopReason, err)
	}
}

func (c *acpClient) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range []*sdk.ContentBlock{chunk(n.Update.UserMessageChunk), chunkA(n.Update.AgentMessageChunk)} {
		if b != nil && b.Text != nil {
			c.buf.WriteString(b.Text.Text + "\n")
		}
	}
	return nil
}

func chunk(u *sdk.SessionUpdateUserMessageChunk) *sdk.ContentBlock {
	if u == nil {
		return nil
	}
	return &u.Content
}

func chunkA(u *sdk.SessionUpdateAgentMessageChunk) *sdk.ContentBlock {
	if u == nil {
		return nil
	}
	return &u.Content
}

var errNotOffered = errors.New("not offered by this client")

func (c *acpClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{}, errNotOffered
}

func (c *acpClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNotOffered
}

func (c *acpClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNotOffered
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}

func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}
