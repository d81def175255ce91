package lspserver

import (
	"context"
	"encoding/json"
	"log/slog"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
)

// runEvents sends one run's agentls/runEvent notifications (E16) to a
// client that announced experimental.agentls.runEvents; for other clients
// it does nothing. Notifications keep their order on the connection, so
// text pieces arrive in the order the model streamed them.
type runEvents struct {
	s       *Server
	ctx     context.Context
	id      string
	enabled bool
}

func (s *Server) newRunEvents(ctx context.Context, sessionID string) *runEvents {
	s.mu.Lock()
	enabled := s.caps.runEvents
	s.mu.Unlock()
	return &runEvents{s: s, ctx: ctx, id: sessionID, enabled: enabled}
}

func (r *runEvents) send(e *command.RunEvent) {
	if !r.enabled {
		return
	}
	e.SessionID = r.id
	// encoding/json, for the omitempty rules the command package documents.
	raw, err := json.Marshal(e)
	if err == nil {
		err = r.s.conn.Notify(context.WithoutCancel(r.ctx), command.MethodRunEvent, jsonrpc2.RawMessage(raw))
	}
	if err != nil {
		r.s.log.Debug("runEvent not sent", slog.String("err", err.Error()))
	}
}

func (r *runEvents) started(mode agent.Mode, title string) {
	r.send(&command.RunEvent{Kind: command.RunStarted, Mode: mode.String(), Title: title})
}

func (r *runEvents) ended(status agent.Status) {
	r.send(&command.RunEvent{Kind: command.RunEnded, Status: command.Status(status)})
}

// report mirrors an agent event: text, tool calls and their outcomes, and
// every event with a level above debug as a log line.
func (r *runEvents) report(e agent.Event) {
	ev := &command.RunEvent{Turn: e.Turn, Depth: e.Depth}
	switch e.Kind {
	case agent.EventText:
		if e.Message == "" || e.Depth > 0 {
			return // a sub-agent's text is its parent's tool result
		}
		ev.Kind, ev.Text = command.RunText, e.Message
	case agent.EventToolCall:
		ev.Kind, ev.Tool = command.RunToolCall, e.Tool
	case agent.EventToolResult:
		ev.Kind, ev.Tool, ev.OK, ev.Code = command.RunToolResult, e.Tool, e.Code == "", e.Code
		ev.Subject, ev.ExitCode = e.Subject, e.ExitCode
		for _, f := range e.Files {
			ev.Files = append(ev.Files, command.CommandFile{Path: f.Path, Change: f.Change})
		}
		if e.Code != "" {
			ev.Message = e.Message // the error the model got
		} else {
			ev.Output = e.Output
		}
		ev.Explain = stepExplanation(e.Explain)
	case agent.EventTurn, agent.EventDone:
		return
	default:
		if e.Level == agent.LevelDebug || e.Message == "" {
			return
		}
		ev.Kind, ev.Level, ev.Message = command.RunLog, string(e.Level), e.Message
	}
	r.send(ev)
}

// stepExplanation is the wire shape of a step's explanation (E21): the
// same members, by their JSON names; nil for none.
func stepExplanation(e *agent.Explanation) *command.StepExplanation {
	if e == nil {
		return nil
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return nil
	}
	var out command.StepExplanation
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return &out
}
