package acp

import (
	"context"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// Options are what `agentls acp` wires in: the same as `serve` gets.
type Options struct {
	// Root, when set, is the directory every session's cwd must be in
	// (`agentls acp --root`); "" allows any absolute directory.
	Root     string
	StateDir string // where sessions are kept; "" keeps them in memory
	Logger   *slog.Logger
	Version  string
	// NewModel returns the model of a run; LoadPolicy the policy of a
	// workspace root.
	NewModel   func() (agent.Model, error)
	LoadPolicy func(root string) (*tools.Policy, error)
	// StartExtensions starts the hooks and MCP servers of a root; ask
	// puts the trust questions to the user. Nil: none.
	StartExtensions func(ctx context.Context, root string, ask tools.Approver) agentrun.Extensions
	Exec            *exec.Runner
	Audit           *tools.AuditLog
	// Registry holds the tools; nil means the built-ins (and sub-agents).
	Registry      *tools.Registry
	MaxTurns      int
	ContextTokens int
	Strict        agent.Strict
	SessionLimits *session.Limits
}

// Serve speaks ACP on in and out until the client disconnects or ctx is
// done; then it cancels the runs, waits for them, and stops the
// extensions.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o *Options) error {
	a := newAgent(o)
	// The SDK starts reading at once; nothing is read until the agent
	// holds the connection and its logger is set.
	gate := &gated{r: in, open: make(chan struct{})}
	conn := sdk.NewAgentSideConnection(a, out, gate)
	conn.SetLogger(a.log)
	a.conn = conn
	close(gate.open)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.close()
	return nil
}

// acpAgent is one connection's agent: the client's capabilities, its
// sessions and the workspaces they are in.
type acpAgent struct {
	o         *Options
	log       *slog.Logger
	conn      client
	reg       *tools.Registry
	subAgents bool
	allow     *tools.Allowances // "always" answers: the user's store, or memory (E21)

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	sessions map[string]*acpSession
	places   map[string]*place
	runs     sync.WaitGroup
	stop     context.CancelFunc // cancels every run
	stopCtx  context.Context
}

// gated is a reader that reads only once open is closed.
type gated struct {
	r    io.Reader
	open chan struct{}
}

func (g *gated) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// client is the part of the SDK's connection the agent calls.
type client interface {
	SessionUpdate(ctx context.Context, n sdk.SessionNotification) error
	RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	ReadTextFile(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error)
	WriteTextFile(ctx context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error)
}

func newAgent(o *Options) *acpAgent {
	a := &acpAgent{o: o, log: o.Logger, reg: o.Registry,
		sessions: map[string]*acpSession{}, places: map[string]*place{}}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.allow = tools.OpenAllowances(tools.AllowStorePath(o.StateDir), a.log) // E21: the user's, never the project's
	if a.o.Exec == nil {
		a.o.Exec = exec.New(nil)
	}
	if a.reg == nil {
		a.reg = tools.NewRegistry()
		a.reg.MustRegister(builtin.All()...)
		a.subAgents = true
	}
	a.stopCtx, a.stop = context.WithCancel(context.Background())
	return a
}

// close cancels the runs, waits for them, gives back the sessions and
// stops the extensions.
func (a *acpAgent) close() {
	a.stop()
	a.runs.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, s := range a.sessions {
		s.sess.Release()
		delete(a.sessions, id)
	}
	for _, p := range a.places {
		p.close()
	}
}

var (
	_ sdk.Agent       = (*acpAgent)(nil)
	_ sdk.AgentLoader = (*acpAgent)(nil)
)

// Initialize answers with what agentls offers: loading sessions, text
// and embedded context in prompts, no authentication (the model's key is
// the user's config).
func (a *acpAgent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	version := a.o.Version
	if version == "" {
		version = "dev"
	}
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "agentls", Version: version},
		AgentCapabilities: sdk.AgentCapabilities{LoadSession: true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true}},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (a *acpAgent) clientCaps() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps
}

// Authenticate is not needed: there is no method to pick.
func (a *acpAgent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// Cancel cancels the session's running prompt; the SDK cancels the
// prompt's context, this is the same for a run that is still starting.
func (a *acpAgent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if s := a.session(string(p.SessionId)); s != nil {
		s.cancelRun()
	}
	return nil
}

func (a *acpAgent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

func (a *acpAgent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

func (a *acpAgent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (a *acpAgent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}
