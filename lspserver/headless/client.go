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
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
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
	Mode        string // plan, review or execute
	Instruction string
	Dir         string // the workspace; "" means the current directory
	File        string // optional, relative to Dir
	Range       string // optional "L1:C1-L2:C2", 1-based
	Approve     Approve
	JSON        bool
	Stdin       io.Reader
	Stdout      io.Writer
	Stderr      io.Writer
	Server      *lspserver.Options
}

// Result is the command result the server returned.
type Result struct {
	SessionID string `json:"sessionId"`
	Status    string `json:"status"`
	Summary   string `json:"summary"`
	Steps     []struct {
		Turn int    `json:"turn"`
		Tool string `json:"tool"`
		OK   bool   `json:"ok"`
		Code string `json:"code,omitempty"`
	} `json:"steps,omitempty"`
	Findings []struct {
		Path     string `json:"path"`
		Line     int    `json:"line"`
		EndLine  int    `json:"endLine,omitempty"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
	} `json:"findings,omitempty"`
	Edits struct {
		Proposed int `json:"proposed"`
		Applied  int `json:"applied"`
		Rejected int `json:"rejected"`
	} `json:"edits"`
}

// Run starts the server in-process, runs one command and returns its
// result. The error is non-nil when the command failed on the wire (the
// server's RequestFailed, bad arguments) or the connection broke.
func Run(ctx context.Context, o *Options) (*Result, error) {
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	srvSide, cliSide := net.Pipe()
	srvDone := make(chan error, 1)
	go func() { srvDone <- lspserver.Serve(ctx, srvSide, o.Server) }()
	conn := lspserver.NewConn(cliSide)
	c.conn = conn
	conn.Go(ctx, c.handle)
	defer func() {
		_ = conn.Close()
		<-srvDone
	}()
	if _, err := conn.Call(ctx, "initialize", c.initParams(), nil); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return nil, err
	}
	res, err := c.execute(ctx)
	_, _ = conn.Call(context.WithoutCancel(ctx), "shutdown", nil, nil)
	_ = conn.Notify(context.WithoutCancel(ctx), "exit", nil)
	return res, err
}

type client struct {
	o    *Options
	root string
	conn jsonrpc2.Conn
	out  *printer
	in   *bufio.Reader

	mu sync.Mutex // serialises terminal questions
}

func newClient(o *Options) (*client, error) {
	dir := o.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
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
	return &client{o: o, root: root, out: &printer{json: o.JSON, w: o.Stdout, errw: o.Stderr}, in: bufio.NewReader(o.Stdin)}, nil
}

func (c *client) initParams() map[string]any {
	t := true
	return map[string]any{
		"processId": os.Getpid(),
		"rootUri":   uri.File(c.root).String(),
		"capabilities": map[string]any{
			"workspace": map[string]any{
				"applyEdit": t,
				"workspaceEdit": map[string]any{
					"documentChanges": t, "resourceOperations": []string{"create"},
					"changeAnnotationSupport": map[string]any{"groupsOnLabel": false},
				},
			},
			"window": map[string]any{"workDoneProgress": t},
			"experimental": map[string]any{"agentls": map[string]any{
				"saveDocuments": t,
				// Editing a proposed text (human_confirm "modify") needs a person.
				"editText": c.o.Approve == ApproveAsk,
			}},
		},
		"clientInfo": map[string]any{"name": "agentls-headless"},
	}
}

func (c *client) execute(ctx context.Context) (*Result, error) {
	target := c.root
	if c.o.File != "" {
		target = filepath.Join(c.root, c.o.File)
	}
	arg := map[string]any{"uri": uri.File(target).String(), "instruction": c.o.Instruction}
	if c.o.Range != "" {
		r, err := parseRange(c.o.Range)
		if err != nil {
			return nil, err
		}
		arg["range"] = r
	}
	cmd := map[string]string{"plan": command.Plan, "review": command.Review, "execute": command.Execute}[c.o.Mode]
	if cmd == "" {
		return nil, fmt.Errorf("unknown mode %q", c.o.Mode)
	}
	var raw json.RawMessage
	if _, err := c.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": cmd, "arguments": []any{arg}}, &raw); err != nil {
		return nil, err
	}
	var res Result
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("server result: %v", err)
	}
	return &res, nil
}

// parseRange turns "L1:C1-L2:C2" (1-based, as editors show them) into an
// LSP range.
func parseRange(s string) (map[string]any, error) {
	var l1, c1, l2, c2 int
	if n, err := fmt.Sscanf(s, "%d:%d-%d:%d", &l1, &c1, &l2, &c2); err != nil || n != 4 || l1 < 1 || c1 < 1 || l2 < l1 || c2 < 1 {
		return nil, fmt.Errorf("--range %q: want L1:C1-L2:C2 with 1-based lines and columns", s)
	}
	pos := func(l, c int) map[string]int { return map[string]int{"line": l - 1, "character": c - 1} }
	return map[string]any{"start": pos(l1, c1), "end": pos(l2, c2)}, nil
}

// Exec runs one command, prints its result and returns the process exit
// code: 0 when the run is done, 1 when it failed or was cancelled.
func Exec(ctx context.Context, o *Options) int {
	res, err := Run(ctx, o)
	p := &printer{json: o.JSON, w: o.Stdout, errw: o.Stderr}
	if err != nil {
		if p.json {
			p.event(map[string]any{"type": "error", "message": err.Error(), "data": wireData(err)})
		} else {
			fmt.Fprintf(o.Stderr, "agentls: %v\n", err)
		}
		return 1
	}
	p.result(res)
	if res.Status != "done" {
		return 1
	}
	return 0
}

// wireData returns the data member of a JSON-RPC error, if any.
func wireData(err error) json.RawMessage {
	var we *jsonrpc2.Error
	if errors.As(err, &we) && len(we.Data) > 0 {
		return json.RawMessage(we.Data)
	}
	return nil
}
