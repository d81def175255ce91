package acp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// progress reports one run to the client as session/updates
// (agentrun.Progress): the model's text as agent message chunks (a
// sub-agent's as thought chunks), each tool call as a tool_call with its
// updates, warnings as thought chunks. Questions and proposals of the run
// belong to the tool call on top of its stack (tool calls run one at a
// time; a sub-agent's nest inside the agent tool's).
type progress struct {
	a    *acpAgent
	sid  string
	root string

	mu         sync.Mutex
	stack      []*toolCall
	ended      bool
	explaining string // the hunk the user rejected to say why (explain.go)
}

var _ agentrun.Progress = (*progress)(nil)

// progressKey finds the run's progress in its context: the gateway's
// hook step and the approver are called with it.
type progressKey struct{}

func withProgress(ctx context.Context, p *progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

func progressFrom(ctx context.Context) *progress {
	p, _ := ctx.Value(progressKey{}).(*progress)
	return p
}

// send sends one update of the session; the client being gone is only
// logged: the run goes on to its end.
func (p *progress) send(u sdk.SessionUpdate) {
	err := p.a.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(p.sid), Update: u})
	if err != nil {
		p.a.log.Debug("session/update not sent: " + err.Error())
	}
}

// Report implements agent.Reporter.
func (p *progress) Report(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		if e.Depth == 0 {
			p.send(sdk.UpdateAgentMessageText(sandbox.VisibleText(e.Message)))
		} else {
			p.send(sdk.UpdateAgentThoughtText(sandbox.VisibleText(e.Message)))
		}
	case agent.EventToolCall:
		p.started(e.Tool)
	case agent.EventToolResult:
		p.result(e)
	case agent.EventWarning, agent.EventRetry, agent.EventRepair, agent.EventCompaction:
		p.send(sdk.UpdateAgentThoughtText(sandbox.VisibleText(fmt.Sprintf("agentls %s: %s\n", e.Kind, e.Message))))
	}
}

// End implements agentrun.Progress: a tool call left open (the run was
// cancelled while it ran) ends failed.
func (p *progress) End(agent.Status) {
	p.mu.Lock()
	open := p.stack
	p.stack, p.ended = nil, true
	p.mu.Unlock()
	for _, c := range open {
		p.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent(textContent("cancelled before it finished"))))
	}
}

// warn tells the user of something that does not stop the run.
func (p *progress) warn(msg string) {
	p.send(sdk.UpdateAgentThoughtText("agentls: warning: " + sandbox.VisibleText(msg) + "\n"))
}

// current is the tool call questions and proposals belong to: the one
// running, else a new one for a question outside any (a trust question
// of the extensions).
func (p *progress) current(tool string) *toolCall {
	c, _ := p.currentOr(tool)
	return c
}

// currentOr is current, and whether the call was made for the question
// alone (its asker ends it).
func (p *progress) currentOr(tool string) (c *toolCall, adhoc bool) {
	p.mu.Lock()
	if n := len(p.stack); n > 0 {
		c := p.stack[n-1]
		p.mu.Unlock()
		return c, false
	}
	p.mu.Unlock()
	c = p.newCall(tool)
	p.send(sdk.StartToolCall(c.id, c.title, sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	return c, true
}

func (p *progress) newCall(tool string) *toolCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.a.session(p.sid)
	n := 0
	if s != nil {
		s.mu.Lock()
		s.calls++
		n = s.calls
		s.mu.Unlock()
	}
	return &toolCall{id: sdk.ToolCallId(fmt.Sprintf("agentls-%d", n)), tool: tool, title: tool, kind: toolKind(tool)}
}

// started opens a tool call: pending until it is approved or runs; the
// read-only kinds, which never ask, are in progress at once.
func (p *progress) started(tool string) {
	c := p.newCall(tool)
	p.mu.Lock()
	p.stack = append(p.stack, c)
	p.mu.Unlock()
	p.send(sdk.StartToolCall(c.id, c.title, sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	if neverAsks(c.kind) {
		p.running(c)
	}
}

// running marks c in progress (once).
func (p *progress) running(c *toolCall) {
	p.mu.Lock()
	was := c.running
	c.running = true
	p.mu.Unlock()
	if !was {
		p.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	}
}

// result ends the tool call on top of the stack with its outcome: its
// title and locations from what it acted on, its output and notes as
// content, completed or failed.
func (p *progress) result(e agent.Event) {
	p.mu.Lock()
	var c *toolCall
	if n := len(p.stack); n > 0 && p.stack[n-1].tool == e.Tool {
		c, p.stack = p.stack[n-1], p.stack[:n-1]
	}
	p.mu.Unlock()
	if c == nil { // refused before it started (too many calls at once)
		c = p.newCall(e.Tool)
		p.send(sdk.StartToolCall(c.id, c.title, sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	}
	if e.Subject != "" {
		c.about(p.root, e.Subject, nil)
	}
	status := sdk.ToolCallStatusCompleted
	if e.Code != "" {
		status = sdk.ToolCallStatusFailed
	}
	opts := append(c.view(), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(textContent(c.outcome(e))))
	p.send(sdk.UpdateToolCall(c.id, opts...))
}

// pre is the gateway's PreToolUse step for the call on top of the
// stack: what it acts on becomes its title and locations.
func (p *progress) pre(hc *tools.HookCall) {
	p.mu.Lock()
	var c *toolCall
	if n := len(p.stack); n > 0 && p.stack[n-1].tool == hc.Tool {
		c = p.stack[n-1]
	}
	p.mu.Unlock()
	if c == nil {
		return
	}
	c.about(p.root, hc.Subject, hc.Input)
	p.send(sdk.UpdateToolCall(c.id, c.view()...))
}

func textContent(text string) []sdk.ToolCallContent {
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}
}
