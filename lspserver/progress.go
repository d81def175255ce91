package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
)

// progressCreateTimeout bounds window/workDoneProgress/create, which
// clients answer without asking anyone; the run goes on without progress
// reports when it passes.
const progressCreateTimeout = 30 * time.Second

// progress reports one run with $/progress (E8) and turns the run's
// events into log messages. It implements agent.Reporter.
type progress struct {
	s       *Server
	ctx     context.Context
	token   string
	enabled bool
	onEvent func(agent.Event) // optional extra observer
	events  *runEvents        // agentls/runEvent, for clients that asked
}

func (s *Server) beginProgress(ctx context.Context, sessionID, title string) *progress {
	p := &progress{s: s, ctx: ctx, token: command.ProgressTokenPrefix + sessionID}
	s.mu.Lock()
	enabled := s.caps.workDoneProgress
	s.mu.Unlock()
	if enabled {
		cctx, cancel := context.WithTimeout(ctx, progressCreateTimeout)
		err := s.clientCall(cctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: protocol.String(p.token)}, nil)
		cancel()
		p.enabled = err == nil
	}
	t := true
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &t, Message: ptr("starting")})
	return p
}

// send reports value, a WorkDoneProgressBegin, Report or End.
func (p *progress) send(value any) {
	if !p.enabled {
		return
	}
	raw, err := protocol.Marshal(value)
	if err != nil {
		p.s.log.Warn("Progress not sent", slog.String("err", err.Error()))
		return
	}
	params := &protocol.ProgressParams{Token: protocol.String(p.token), Value: raw}
	_ = p.s.conn.Notify(context.WithoutCancel(p.ctx), "$/progress", params)
}

// Report implements agent.Reporter: tool calls become progress reports;
// every event with a level (retries, repairs, fallbacks, denials) becomes a
// window/logMessage at that level (A14).
func (p *progress) Report(e agent.Event) {
	if p.onEvent != nil {
		p.onEvent(e)
	}
	if p.events != nil {
		p.events.report(e)
	}
	switch e.Kind {
	case agent.EventText, agent.EventTurn:
		return
	case agent.EventToolCall:
		if e.Depth == 0 {
			p.send(&protocol.WorkDoneProgressReport{Kind: "report", Message: ptr(fmt.Sprintf("turn %d: %s", e.Turn, e.Tool))})
		}
		return
	case agent.EventToolResult:
		if e.Code != "" {
			p.s.logMessage(p.ctx, protocol.MessageTypeInfo, prefix(e)+fmt.Sprintf("%s refused: %s", e.Tool, e.Message))
		}
		return
	case agent.EventDone:
		return
	}
	typ, ok := map[agent.Level]protocol.MessageType{
		agent.LevelError: protocol.MessageTypeError, agent.LevelWarning: protocol.MessageTypeWarning,
		agent.LevelInfo: protocol.MessageTypeInfo,
	}[e.Level]
	if ok && e.Message != "" {
		p.s.logMessage(p.ctx, typ, prefix(e)+e.Message)
	}
}

func prefix(e agent.Event) string {
	if e.Depth > 0 {
		return "agentls sub-agent: "
	}
	return "agentls: "
}

// End implements agentrun.Progress: the run's agentls/runEvent end, then
// its $/progress end.
func (p *progress) End(status agent.Status) {
	if p.events != nil {
		p.events.ended(status)
	}
	p.end(string(status))
}

func (p *progress) end(msg string) {
	p.send(&protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
}

// progressCancel handles window/workDoneProgress/cancel for a run's token.
func (s *Server) progressCancel(params jsonrpc2.RawMessage) error {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	var tok string
	if json.Unmarshal(p.Token, &tok) != nil || !strings.HasPrefix(tok, command.ProgressTokenPrefix) {
		return nil // not ours
	}
	s.cancelRun(strings.TrimPrefix(tok, command.ProgressTokenPrefix))
	return nil
}
