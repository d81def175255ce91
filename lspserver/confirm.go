package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/command"
)

// clientCall sends a request to the client and waits until it answers or
// ctx is done; the caller bounds ctx (questions by the run policy's
// approval timeout, through the gateway or the proposer). When the call is
// abandoned (timeout or cancel) it tells the client with $/cancelRequest
// on a detached context, as gopls does. params are encoded by the
// connection's codec (protocol.Marshal); the result is decoded with
// encoding/json.
func (s *Server) clientCall(ctx context.Context, method string, params any, result any) error {
	var out jsonrpc2.RawMessage
	id, err := s.conn.Call(ctx, method, params, &out)
	if err != nil {
		if ctx.Err() != nil && id.IsValid() {
			_ = s.conn.Notify(context.WithoutCancel(ctx), "$/cancelRequest", &protocol.CancelParams{ID: progressID(id)})
		}
		return err
	}
	if result != nil && len(out) > 0 {
		return json.Unmarshal(out, result)
	}
	return nil
}

// progressID turns the ID of one of our calls into the integer-or-string
// of CancelParams. Our IDs are the connection's counter, far below the
// int32 limit of the spec's integer.
func progressID(id jsonrpc2.ID) protocol.ProgressToken {
	if n, ok := id.Number(); ok {
		return protocol.Integer(n)
	}
	str, _ := id.StringValue()
	return protocol.String(str)
}

// ask shows a question with actions and returns the chosen title. No
// answer before ctx's deadline, an error, a null answer, a disconnected
// client or a title that is not one of the actions all return "" — which
// every caller treats as deny (E7).
//
// Clients other than our plugins get the safe answers first (E19): eglot
// and others pre-select the first action, so Enter must not approve.
func (s *Server) ask(ctx context.Context, typ protocol.MessageType, msg string, actions ...string) string {
	params := &protocol.ShowMessageRequestParams{Type: typ, Message: msg}
	s.mu.Lock()
	own := s.caps.ownPlugin
	s.mu.Unlock()
	offered := actions
	if !own {
		offered = safeFirst(actions)
	}
	for _, a := range offered {
		params.Actions = append(params.Actions, protocol.MessageActionItem{Title: a})
	}
	var res *protocol.MessageActionItem
	if err := s.clientCall(ctx, "window/showMessageRequest", params, &res); err != nil {
		reason := "error"
		if errors.Is(err, context.DeadlineExceeded) {
			reason = "timeout"
		}
		s.log.Warn("Question unanswered; treating as deny", slog.String("why", reason), slog.String("err", err.Error()))
		return ""
	}
	if res == nil {
		return ""
	}
	for _, a := range actions {
		if res.Title == a {
			return a
		}
	}
	return ""
}

// safeActions are the answers that change nothing.
var safeActions = map[string]bool{command.ActionDeny: true, command.ActionNotNow: true}

// safeFirst returns actions with the safe answers first, the others in
// their order after them.
func safeFirst(actions []string) []string {
	out := make([]string, 0, len(actions))
	for _, a := range actions {
		if safeActions[a] {
			out = append(out, a)
		}
	}
	for _, a := range actions {
		if !safeActions[a] {
			out = append(out, a)
		}
	}
	return out
}

// logMessage sends window/logMessage; failures only go to the log.
func (s *Server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	params := &protocol.LogMessageParams{Type: typ, Message: msg}
	if err := s.conn.Notify(context.WithoutCancel(ctx), "window/logMessage", params); err != nil {
		s.log.Debug("logMessage failed", slog.String("err", err.Error()))
	}
}
