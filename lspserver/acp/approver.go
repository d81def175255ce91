package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// The options of a permission request, by their kinds' names.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optRejectOnce  = "reject_once"
)

// approver implements tools.Approver with session/request_permission on
// the run's current tool call: a command shows its text and sandbox note
// (the gateway's preview), a control file its warning first and no
// "allow always" (E15); human_confirm the model's question. ACP clients
// show one "always" button whose reach the user cannot choose, so it
// keeps the answer for this session (E21), the narrowest scope that
// lasts: an ACP session is an agentls session, kept across restarts;
// wider scopes are for the editors and the terminal that offer them by
// name. No answer,
// an error or a cancelled request is a deny (the gateway's rule).
type approver struct{ p *progress }

func (ap approver) Approve(ctx context.Context, req *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	if what := ap.p.explainingAt(); what != "" {
		return tools.ApprovalResponse{Answer: tools.AnswerDeny, Reason: declinedForReason(what)}, nil
	}
	c, adhoc := ap.p.currentOr(req.Tool)
	text, title := ap.question(req)
	opts := []sdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
	}
	if slices.Contains(req.Scopes, tools.ScopeSession) {
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowAlways, Name: "Always allow in this session",
			Kind: sdk.PermissionOptionKindAllowAlways})
	}
	pick, err := ap.p.ask(ctx, c, title, textContent(text), opts)
	if adhoc { // a question outside any tool call (a trust question) ends with its answer
		status := sdk.ToolCallStatusFailed
		if pick == optAllowOnce || pick == optAllowAlways {
			status = sdk.ToolCallStatusCompleted
		}
		ap.p.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(status)))
	}
	if err != nil {
		return tools.ApprovalResponse{Answer: tools.AnswerDeny}, err
	}
	switch pick {
	case optAllowOnce:
		ap.p.running(c)
		return tools.ApprovalResponse{Answer: tools.AnswerApprove, Text: req.Text}, nil
	case optAllowAlways:
		ap.p.running(c)
		return tools.ApprovalResponse{Answer: tools.AnswerAlways, Scope: tools.ScopeSession}, nil
	}
	return tools.ApprovalResponse{Answer: tools.AnswerDeny}, nil
}

// question is what a request shows, control bytes visible: the warning
// of a control file, the preview (a command with its sandbox note), the
// rule that asks.
func (ap approver) question(req *tools.ApprovalRequest) (text, title string) {
	if req.Question != "" {
		text = sandbox.VisibleText(req.Question)
		if req.Text != "" {
			text += "\n\n" + sandbox.VisibleText(req.Text)
		}
		return text, "agentls asks: " + cutRunes(sandbox.Visible(firstLine(req.Question)), 120)
	}
	var b strings.Builder
	if req.Control {
		b.WriteString(req.Warning + "\n\n")
	}
	preview := req.Preview
	if preview == "" {
		preview = req.Subject
	}
	b.WriteString(sandbox.VisibleText(preview))
	if req.Reason != "" {
		fmt.Fprintf(&b, "\n\nasked by: %s", sandbox.Visible(req.Reason))
	}
	return b.String(), fmt.Sprintf("%s %s (%s)", req.Tool, cutRunes(sandbox.Visible(req.Subject), 120), req.Risk)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// ask puts one permission request on tool call c and returns the option
// picked; "" for a cancelled request. The wait does not count against
// the tool call's own time limit (tools.AwaitUser).
func (p *progress) ask(ctx context.Context, c *toolCall, title string, content []sdk.ToolCallContent, opts []sdk.PermissionOption) (string, error) {
	defer tools.AwaitUser(ctx)()
	pending := sdk.ToolCallStatusPending
	c.mu.Lock()
	locs := append([]sdk.ToolCallLocation(nil), c.locs...)
	c.mu.Unlock()
	kind := c.kind
	resp, err := p.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(p.sid), Options: opts,
		ToolCall: sdk.ToolCallUpdate{ToolCallId: c.id, Title: &title, Kind: &kind, Status: &pending, Content: content, Locations: locs},
	})
	if err != nil {
		return "", err
	}
	if s := resp.Outcome.Selected; s != nil {
		return string(s.OptionId), nil
	}
	return "", nil
}
