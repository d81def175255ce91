package lspserver

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// approver implements tools.Approver with window/showMessageRequest (E7):
// Approve / Deny / an "Always …" per scope the gateway offers (E21: this
// session, this workspace, everywhere; none for a control file, which
// gets its warning and its own approve action: E15). The gateway bounds ctx by
// the policy's approval timeout; no answer by then, an error, a disconnect
// or an unknown title is a deny.
type approver struct{ s *Server }

func (a approver) Approve(ctx context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	if req.Question != "" {
		return a.confirm(ctx, req)
	}
	msg := fmt.Sprintf("agentls wants to run %s (%s):\n%s", req.Tool, req.Risk, req.Preview)
	if req.Preview == "" {
		msg = fmt.Sprintf("agentls wants to run %s (%s): %s", req.Tool, req.Risk, req.Subject)
	}
	msg += askedBecause(req)
	actions := []string{command.ActionApprove, command.ActionDeny}
	for _, sc := range req.Scopes {
		actions = append(actions, alwaysActions[sc])
	}
	if req.Control {
		// E15: a control file is asked one by one, with its warning first
		// and its own approve action.
		msg = req.Warning + "\n\n" + msg
		actions = []string{command.ActionApproveControl, command.ActionDeny}
	}
	if a.s.editTextSupported() {
		actions = append(actions, command.ActionDenyWithReason)
	}
	switch pick := a.s.ask(ctx, protocol.MessageTypeWarning, msg, actions...); pick {
	case command.ActionApprove, command.ActionApproveControl:
		return tools.ApprovalResponse{Answer: tools.AnswerApprove, Auto: a.flagAnswers(true)}, nil
	case command.ActionDenyWithReason:
		return a.denyWithReason(ctx, req.Tool), nil
	case "":
		return tools.ApprovalResponse{Answer: tools.AnswerDeny, Auto: a.flagAnswers(false)}, nil
	case alwaysActions[tools.ScopeSession], alwaysActions[tools.ScopeWorkspace], alwaysActions[tools.ScopeEverywhere]:
		return alwaysAnswer(pick, req.Scopes), nil
	}
	return tools.ApprovalResponse{Answer: tools.AnswerDeny}, nil
}

// flagAnswers reports whether the client's flag, not a person, gave a
// yes (headless --approve=all) or a no (--approve=never), for the
// step's explanation and the audit (E21).
func (a approver) flagAnswers(yes bool) bool {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	if yes {
		return a.s.caps.autoApprove
	}
	return a.s.caps.unattended
}

// alwaysActions are the titles of the "always" answers, per scope (E21).
var alwaysActions = map[tools.Scope]string{
	tools.ScopeSession:    command.ActionAlwaysSession,
	tools.ScopeWorkspace:  command.ActionAlwaysWorkspace,
	tools.ScopeEverywhere: command.ActionAlwaysEverywhere,
}

// alwaysAnswer is the answer of an "always" title, if its scope was
// offered; any other title is a deny.
func alwaysAnswer(title string, offered []tools.Scope) tools.ApprovalResponse {
	for _, sc := range offered {
		if alwaysActions[sc] == title {
			return tools.ApprovalResponse{Answer: tools.AnswerAlways, Scope: sc}
		}
	}
	return tools.ApprovalResponse{Answer: tools.AnswerDeny}
}

// askedBecause says why the question is asked (issue 28): what the call
// does, in the check's words, and the rule that asks; `agentls vet`
// explains a call the same way.
func askedBecause(req *tools.ApprovalRequest) string {
	switch {
	case req.Reason == "":
		return ""
	case req.Why == "":
		return "\n\nWhy asked: the rule " + sandbox.Visible(req.Reason) + "."
	}
	return fmt.Sprintf("\n\nWhy asked: %s (rule %s).", sandbox.Visible(req.Why), sandbox.Visible(req.Reason))
}

// maxReason bounds the user's reason, in bytes.
const maxReason = 2000

// denyWithReason asks the user why they declined (agentls/editText) and
// returns a deny with their words; no text (cancelled, empty, an error)
// is a plain deny (issue 28).
func (a approver) denyWithReason(ctx context.Context, tool string) tools.ApprovalResponse {
	var res command.EditTextResult
	prompt := "Why not " + tool + "? agentls tells the model your words."
	if err := a.s.clientCall(ctx, command.MethodEditText, &command.EditTextParams{Prompt: prompt}, &res); err != nil || res.Text == nil {
		return tools.ApprovalResponse{Answer: tools.AnswerDeny}
	}
	reason := strings.TrimSpace(*res.Text)
	if len(reason) > maxReason {
		reason = strings.ToValidUTF8(reason[:maxReason], "") + "…"
	}
	return tools.ApprovalResponse{Answer: tools.AnswerDeny, Reason: reason}
}

// confirm serves human_confirm: the model's own question. Clients of ours
// that can edit text answer agentls/editText; the rest get approve / deny.
func (a approver) confirm(ctx context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	msg := req.Question
	if req.Text != "" {
		msg += "\n\n" + req.Text
	}
	actions := []string{command.ActionApprove, command.ActionDeny}
	if req.Text != "" && a.s.editTextSupported() {
		actions = append(actions, command.ActionModify)
	}
	switch a.s.ask(ctx, protocol.MessageTypeInfo, msg, actions...) {
	case command.ActionApprove:
		return tools.ApprovalResponse{Answer: tools.AnswerApprove, Text: req.Text}, nil
	case command.ActionModify:
		var res command.EditTextResult
		err := a.s.clientCall(ctx, command.MethodEditText, &command.EditTextParams{Prompt: req.Question, Text: req.Text}, &res)
		if err != nil || res.Text == nil {
			return tools.ApprovalResponse{Answer: tools.AnswerDeny}, nil
		}
		return tools.ApprovalResponse{Answer: tools.AnswerModify, Text: *res.Text}, nil
	}
	return tools.ApprovalResponse{Answer: tools.AnswerDeny}, nil
}

func (s *Server) editTextSupported() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.editText
}
