package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/transport"
)

// Approve says how the client answers questions.
type Approve string

// The approval modes.
const (
	ApproveAsk   Approve = "ask"   // ask on the terminal
	ApproveNever Approve = "never" // every question is a deny
	ApproveAll   Approve = "all"   // approve everything
)

// Options configures one headless run.
type Options struct {
	Mode        agent.Mode
	Instruction string
	Dir         string // the workspace; "" means the current directory
	File        string // optional, relative to Dir
	Range       string // optional "L1:C1-L2:C2", 1-based
	SessionID   string // optional: continue this session (A16)
	Approve     Approve
	JSON        bool
	// Explain prints why each tool call was allowed, asked or denied
	// (E21): under its outcome in text, as the tool_result event's
	// explain member with JSON.
	Explain bool
	// Spinner shows what the run waits for on Stderr, a terminal (text
	// only; never set it for a pipe or a file).
	Spinner bool
	// FailOn (review): error, warning, info or hint; a finding at or
	// above it makes the exit code ExitFindings.
	FailOn string
	// SARIF (review): Stdout gets the findings as one SARIF 2.1.0 log;
	// what the run prints goes to Stderr.
	SARIF bool
	// Version names agentls in the SARIF log.
	Version string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Server  *lspserver.Options
}

// Run starts the server in-process, runs one command and returns its
// result. The error is non-nil when the command failed on the wire (the
// server's RequestFailed, bad arguments) or the connection broke.
func Run(ctx context.Context, o *Options) (*command.Result, error) {
	return run(ctx, o, nil)
}

// run is Run with the client's printer given (nil: its own).
func run(ctx context.Context, o *Options, p *printer) (*command.Result, error) {
	var res command.Result
	err := connect(ctx, o, p, func(c *client) error {
		r, err := c.execute(ctx)
		if r != nil {
			res = *r
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// connect starts the server in-process, connects to it, initializes it,
// runs do and shuts the server down.
func connect(ctx context.Context, o *Options, p *printer, do func(c *client) error) error {
	c, err := newClient(o)
	if err != nil {
		return err
	}
	if p != nil {
		c.out = p
	}
	srvSide, cliSide := net.Pipe()
	srvDone := make(chan error, 1)
	go func() { srvDone <- lspserver.Serve(ctx, srvSide, o.Server) }()
	cctx, stop := context.WithCancel(ctx)
	defer stop() // also ends the terminal reader's wait to hand over a line
	c.ctx = cctx
	conn := transport.NewConn(cliSide, nil)
	c.conn = conn
	// The client keeps reading after a cancel (Ctrl-C), so that the
	// server can answer and stop at once instead of waiting for its drain
	// to time out; Close ends the reading.
	conn.Go(context.WithoutCancel(ctx), c.handle)
	defer func() {
		_ = conn.Close()
		<-srvDone
	}()
	if _, err := conn.Call(ctx, "initialize", c.initParams(), nil); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := conn.Notify(ctx, "initialized", &protocol.InitializedParams{}); err != nil {
		return err
	}
	err = do(c)
	_, _ = conn.Call(context.WithoutCancel(ctx), "shutdown", nil, nil)
	_ = conn.Notify(context.WithoutCancel(ctx), "exit", nil)
	return err
}

// Root is the workspace root a headless run in dir uses ("" for the
// current directory): absolute, symlinks resolved, as the server keys its
// sessions.
func Root(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return root, nil
}

type client struct {
	o    *Options
	root string
	conn jsonrpc2.Conn
	out  *printer
	in   *bufio.Reader
	// ctx is the run's: cancelled by Ctrl-C (signal.NotifyContext in main),
	// it ends any question waiting for the terminal (E17).
	ctx context.Context

	mu sync.Mutex // serialises terminal questions

	readOnce sync.Once
	lines    chan readResult // the terminal reader's lines
}

type readResult struct {
	line string
	err  error
}

// readLine returns the next line typed on the terminal, or ctx's error
// when the run is cancelled while waiting: a read of stdin cannot be
// interrupted, so one goroutine reads lines and hands them over, and a
// cancelled question stops waiting for it. That goroutine ends at EOF or
// when Run returns; one blocked in a read of a terminal ends with the
// process.
func (c *client) readLine() (string, error) {
	c.readOnce.Do(func() {
		c.lines = make(chan readResult)
		go func() {
			defer close(c.lines) // after EOF, every read is EOF at once
			for {
				line, err := c.in.ReadString('\n')
				select {
				case c.lines <- readResult{line, err}:
				case <-c.ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
	})
	select {
	case r, ok := <-c.lines:
		if !ok {
			return "", io.EOF
		}
		return r.line, r.err
	case <-c.ctx.Done():
		return "", c.ctx.Err()
	}
}

func newClient(o *Options) (*client, error) {
	root, err := Root(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Stdin == nil {
		o.Stdin = strings.NewReader("")
	}
	if o.Approve == "" {
		o.Approve = ApproveNever
	}
	return &client{o: o, root: root, out: newPrinter(o), in: bufio.NewReader(o.Stdin), ctx: context.Background()}, nil
}

// newPrinter is the printer of o: under SARIF what the run prints goes
// to stderr, as text, and stdout is the log's alone.
func newPrinter(o *Options) *printer {
	p := &printer{json: o.JSON, w: o.Stdout, errw: o.Stderr, brief: o.Approve == ApproveAsk, explain: o.Explain}
	if o.SARIF {
		p.json, p.w = false, o.Stderr
	}
	return p
}

func (c *client) initParams() *protocol.InitializeParams {
	t, f := true, false
	pid := int32(os.Getpid())
	root := uri.File(c.root)
	// Editing a proposed text (human_confirm "modify") needs a person. Run
	// events tell the terminal each tool call's outcome (run_event.go).
	exp, _ := json.Marshal(command.Experimental{Agentls: command.ClientCapabilities{
		SaveDocuments: true, EditText: c.o.Approve == ApproveAsk, Unattended: c.o.Approve == ApproveNever,
		AutoApprove: c.o.Approve == ApproveAll,
		RunEvents:   true,
	}})
	return &protocol.InitializeParams{
		ProcessID: &pid,
		RootURI:   &root,
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{
				ApplyEdit: &t,
				WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{
					DocumentChanges:         &t,
					ResourceOperations:      []protocol.ResourceOperationKind{protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindDelete},
					ChangeAnnotationSupport: &protocol.ChangeAnnotationsSupportOptions{GroupsOnLabel: &f},
				},
			},
			Window:       &protocol.WindowClientCapabilities{WorkDoneProgress: &t},
			Experimental: exp,
		},
		ClientInfo: protocol.ClientInfo{Name: "agentls-headless"},
	}
}

func (c *client) execute(ctx context.Context) (*command.Result, error) {
	target := c.root
	if c.o.File != "" {
		target = filepath.Join(c.root, c.o.File)
	}
	arg := command.Args{Target: command.Target{URI: uri.File(target).String()}, Instruction: c.o.Instruction, SessionID: c.o.SessionID}
	if c.o.Range != "" {
		r, err := ParseRange(c.o.Range)
		if err != nil {
			return nil, err
		}
		arg.Range = r
	}
	cmd := lspserver.CommandFor(c.o.Mode)
	if cmd == "" {
		return nil, fmt.Errorf("unknown mode %s", c.o.Mode)
	}
	rawArg, err := json.Marshal(arg)
	if err != nil {
		return nil, err
	}
	params := &protocol.ExecuteCommandParams{Command: cmd, Arguments: []protocol.LSPAny{rawArg}}
	var raw json.RawMessage
	if _, err := c.conn.Call(ctx, "workspace/executeCommand", params, &raw); err != nil {
		return nil, err
	}
	var res command.Result
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("server result: %v", err)
	}
	return &res, nil
}

// ErrUsage marks an error in the command line (exit code ExitUsage).
var ErrUsage = errors.New("bad command line")

// ParseRange turns "L1:C1-L2:C2" (1-based, as editors show them) into an
// LSP range; a bad one is an ErrUsage.
func ParseRange(s string) (*protocol.Range, error) {
	var l1, c1, l2, c2 int
	var rest string
	n, _ := fmt.Sscanf(s+" end", "%d:%d-%d:%d %s", &l1, &c1, &l2, &c2, &rest)
	if n != 5 || rest != "end" || l1 < 1 || c1 < 1 || l2 < l1 || c2 < 1 || (l2 == l1 && c2 < c1) {
		return nil, fmt.Errorf("%w: --range %q: want L1:C1-L2:C2, 1-based lines and columns, the end not before the start", ErrUsage, s)
	}
	pos := func(l, c int) protocol.Position {
		return protocol.Position{Line: uint32(l - 1), Character: uint32(c - 1)}
	}
	return &protocol.Range{Start: pos(l1, c1), End: pos(l2, c2)}, nil
}

// wireData returns the data member of a JSON-RPC error, if any.
func wireData(err error) json.RawMessage {
	var we *jsonrpc2.Error
	if errors.As(err, &we) && len(we.Data) > 0 {
		return json.RawMessage(we.Data)
	}
	return nil
}
