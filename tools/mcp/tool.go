package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/tools"
)

// tool turns one of the server's tool definitions into a gateway tool.
func (s *server) tool(d *sdk.Tool) (*tools.Tool, error) {
	name := ToolName(s.name, d.Name)
	if name == "" {
		return nil, errors.New("its name has no letters or digits")
	}
	schema, err := inputSchema(d.InputSchema)
	if err != nil {
		return nil, err
	}
	t := &tools.Tool{
		Name:        name,
		Description: fmt.Sprintf("[MCP server %s, tool %s; untrusted description] %s", s.name, cut(d.Name, 64), Description(d.Description)),
		Schema:      schema,
		Risk:        tools.RiskMCP,
		Check: func(_ context.Context, _ *tools.Env, args json.RawMessage) (*tools.Verdict, error) {
			return &tools.Verdict{Decision: tools.Allow, Rule: "mcp.call", Subject: compact(args, 200),
				Preview: s.preview(d, args)}, nil
		},
	}
	remote := d.Name
	t.Available = func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.state != StateRemoved
	}
	t.Run = func(ctx context.Context, _ *tools.Env, args json.RawMessage) (tools.Result, error) {
		return s.call(ctx, remote, args)
	}
	// Compile it now, so a schema the gateway cannot use skips the tool
	// here, with a warning, instead of failing the run's gateway.
	if err := tools.NewRegistry().Register(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Description makes an untrusted tool description fit to show: control
// characters become spaces, and it is capped at [MaxDescription] bytes.
func Description(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	s = strings.TrimSpace(s)
	if len(s) > MaxDescription {
		s = strings.ToValidUTF8(s[:MaxDescription], "") + " [description cut]"
	}
	return s
}

// inputSchema is the tool's schema as JSON: an object schema, bounded.
func inputSchema(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("input schema: %v", err)
	}
	if len(b) > maxSchema {
		return nil, fmt.Errorf("input schema over %d bytes", maxSchema)
	}
	var top map[string]any
	if json.Unmarshal(b, &top) != nil {
		return nil, errors.New("input schema is not an object")
	}
	if typ, ok := top["type"]; ok && typ != "object" {
		return nil, errors.New("input schema does not describe an object")
	}
	return b, nil
}

// preview is what the user approves: the server, the tool, what the
// server says of it (untrusted hints) and the arguments.
func (s *server) preview(d *sdk.Tool, args json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %s, tool %s", s.name, cut(d.Name, 64))
	if hints := Hints(d.Annotations); len(hints) > 0 {
		fmt.Fprintf(&b, " (the server says: %s)", strings.Join(hints, ", "))
	}
	b.WriteString("\n" + compact(args, 2000))
	return b.String()
}

// Hints lists a tool's annotations as words; they are the server's claims,
// shown to the user, never used to decide anything.
func Hints(a *sdk.ToolAnnotations) []string {
	if a == nil {
		return nil
	}
	var h []string
	if a.ReadOnlyHint {
		h = append(h, "read-only")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && !a.ReadOnlyHint {
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		h = append(h, "open-world")
	}
	return h
}

// call runs one tool call on the server within its timeout. A dead
// connection is a crash: the first restarts the server, the second
// removes its tools.
func (s *server) call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	c, err := s.session(ctx)
	if err != nil {
		return s.unavailable(), nil
	}
	timeout := s.cfg.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.sess.CallTool(cctx, &sdk.CallToolParams{Name: name, Arguments: args})
	switch {
	case err == nil:
		return toResult(res), nil
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case cctx.Err() != nil && !c.dead():
		s.recycle(c)
		return tools.Fail(tools.CodeTimeout, "", fmt.Sprintf("MCP server %s did not answer within %s; its connection was reset", s.name, timeout),
			"try another way, or narrow the request"), nil
	case c.garbled() != "":
		s.recycle(c)
		return tools.Fail(tools.CodeInternal, "", fmt.Sprintf("MCP server %s %s; the call failed and the connection was reset", s.name, c.garbled()),
			"ask for less at a time, or do without this tool"), nil
	case c.dead() || errors.Is(err, sdk.ErrConnectionClosed) || waitDead(c, 200*time.Millisecond):
		if !s.crashed(ctx, c) {
			return s.unavailable(), nil
		}
		return tools.Fail(tools.CodeInternal, "", fmt.Sprintf("MCP server %s crashed during the call and was restarted; whether the call took effect is unknown", s.name),
			"call again only if repeating it is safe"), nil
	}
	// A protocol error from the server (unknown tool, invalid params):
	// its text is the server's, so bounded.
	return tools.Result{IsError: true, Content: "MCP server " + s.name + " refused the call: " + cut(err.Error(), 1000)}, nil
}

// waitDead reports whether c ends within d: a process that exits in the
// middle of a call may fail the call a moment before the session notices.
func waitDead(c *conn, d time.Duration) bool {
	select {
	case <-c.closed:
		return true
	case <-time.After(d):
		return false
	}
}

func (s *server) unavailable() tools.Result {
	s.mu.Lock()
	why := s.why
	s.mu.Unlock()
	return tools.Fail(tools.CodeToolUnavailable, "", fmt.Sprintf("the tools of MCP server %s were removed: it %s", s.name, why),
		"do without the tools of "+s.name+"; they are gone for this session")
}

// toResult renders a call's content for the model: text as it is, other
// content as a short note.
func toResult(r *sdk.CallToolResult) tools.Result {
	var parts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", cut(c.MIMEType, 40), len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", cut(c.MIMEType, 40), len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", cut(c.URI, 500), cut(c.Name, 100)))
		case *sdk.EmbeddedResource:
			switch {
			case c.Resource == nil:
			case c.Resource.Text != "":
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", cut(c.Resource.URI, 500), c.Resource.Text))
			default:
				parts = append(parts, fmt.Sprintf("[resource %s, %d bytes]", cut(c.Resource.URI, 500), len(c.Resource.Blob)))
			}
		default:
			parts = append(parts, "[content the client does not show]")
		}
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return tools.Result{Content: strings.Join(parts, "\n"), IsError: r.IsError}
}

// compact is args as one bounded line.
func compact(args json.RawMessage, n int) string {
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		return cut(string(args), n)
	}
	return cut(b.String(), n)
}

// defsHash pins a server's tool definitions: names, descriptions, input
// schemas and annotations, in name order.
func defsHash(defs []*sdk.Tool) string {
	type def struct {
		Name        string               `json:"name"`
		Description string               `json:"description"`
		Schema      any                  `json:"schema"`
		Annotations *sdk.ToolAnnotations `json:"annotations,omitempty"`
	}
	ds := make([]def, 0, len(defs))
	for _, d := range defs {
		ds = append(ds, def{d.Name, d.Description, d.InputSchema, d.Annotations})
	}
	slices.SortFunc(ds, func(a, b def) int { return strings.Compare(a.Name, b.Name) })
	b, _ := json.Marshal(ds)
	return hashOf(b)
}
