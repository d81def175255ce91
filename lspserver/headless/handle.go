package headless

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// handle answers the server's requests and prints its notifications.
func (c *client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := req.Params()
	if !req.IsCall() {
		c.notification(req.Method(), params)
		return nil, nil
	}
	jsonrpc2.Async(ctx)
	switch req.Method() {
	case "workspace/applyEdit":
		return c.applyEdit(params)
	case "window/showMessageRequest":
		return c.showMessageRequest(params)
	case command.MethodSaveDocuments:
		// The disk is this client's buffer: everything applied is saved.
		var p command.SaveDocumentsParams
		_ = json.Unmarshal(params, &p)
		return &command.SaveDocumentsResult{Saved: p.URIs}, nil
	case "window/workDoneProgress/create":
		return nil, nil
	case command.MethodEditText:
		return c.editText(params)
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "headless client: "+req.Method())
}

func (c *client) notification(method string, params jsonrpc2.RawMessage) {
	switch method {
	case "$/progress":
		var p protocol.ProgressParams
		var v progressValue
		if protocol.Unmarshal(params, &p) == nil && json.Unmarshal(p.Value, &v) == nil {
			c.out.progress(v.Kind, v.Title, v.Message)
		}
	case "window/logMessage", "window/showMessage":
		// LogMessageParams and ShowMessageParams have the same shape.
		var p protocol.LogMessageParams
		if protocol.Unmarshal(params, &p) == nil {
			c.out.log(int(p.Type), p.Message)
		}
	case "textDocument/publishDiagnostics":
		c.out.diagnostics(c.root, params)
	case command.MethodRunEvent:
		c.runEvent(json.RawMessage(params))
	}
}

// progressValue is the part of a $/progress value the client prints: the
// value is any JSON to go.lsp.dev/protocol (LSPAny), and the fields of
// WorkDoneProgressBegin, Report and End it needs are these three.
type progressValue struct {
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Message string `json:"message"`
}

// showMessageRequest answers a question: on the terminal, or by the
// --approve mode. Anything but a clear yes is no.
func (c *client) showMessageRequest(params jsonrpc2.RawMessage) (any, error) {
	var p protocol.ShowMessageRequestParams
	if err := protocol.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	var titles []string
	for _, a := range p.Actions {
		titles = append(titles, a.Title)
	}
	pick := c.decide(p.Message, titles)
	if pick == "" {
		return nil, nil
	}
	return &protocol.MessageActionItem{Title: pick}, nil
}

// decide returns the chosen action title, or "" for no answer.
func (c *client) decide(question string, actions []string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	approve, control := "", false
	for _, a := range actions {
		switch a {
		case command.ActionApprove, command.ActionSaved:
			approve = a
		case command.ActionApproveControl:
			control = true
		}
	}
	switch c.o.Approve {
	case ApproveAll:
		if control {
			// E15: a change to a file that runs outside the sandbox is
			// asked one by one, so a blanket yes never answers it.
			c.out.approval(question, "", decisionDenied, "denied: --approve=all never approves control files; use --approve=ask")
			return ""
		}
		c.out.approval(question, approve, decisionApproved, "approved (--approve=all)")
		return approve
	case ApproveNever:
		c.out.approval(question, "", decisionDenied, "denied (--approve=never)")
		return ""
	}
	resume := c.out.pauseSpinner()
	defer resume()
	// T22: the question holds the model's text (a command, a human_confirm
	// question and its text), shown with its control characters visible.
	fmt.Fprintf(c.o.Stderr, "\n%s\n", sandbox.VisibleText(question))
	for i, a := range actions {
		fmt.Fprintf(c.o.Stderr, "  [%d] %s\n", i+1, sandbox.Visible(a))
	}
	fmt.Fprintf(c.o.Stderr, "choice (number, empty = no): ")
	line, err := c.readLine()
	if c.ctx.Err() != nil {
		fmt.Fprintf(c.o.Stderr, "\ncancelled\n")
		c.out.approval(question, "", decisionDenied, "denied (cancelled)")
		return ""
	}
	_ = err // EOF: no answer, a deny
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "%d", &n); err == nil && n >= 1 && n <= len(actions) {
		decision, how := answered(actions[n-1])
		c.out.approval(question, actions[n-1], decision, how)
		return actions[n-1]
	}
	c.out.approval(question, "", decisionDenied, "denied (no answer)")
	return ""
}

// answered is the decision an action picked on the terminal stands for,
// and the words the echo says it in.
func answered(action string) (decision, how string) {
	switch action {
	case command.ActionDeny, command.ActionNotNow:
		return decisionDenied, "denied on the terminal"
	case command.ActionDenyWithReason:
		return decisionDenied, "denied on the terminal, with a reason"
	case command.ActionModify:
		return decisionEdit, "to be edited on the terminal"
	case command.ActionAlwaysSession:
		return decisionApproved, "approved on the terminal, and like it in this session"
	case command.ActionAlwaysWorkspace:
		return decisionApproved, "approved on the terminal, and like it in this workspace (agentls policy list)"
	case command.ActionAlwaysEverywhere:
		return decisionApproved, "approved on the terminal, and like it everywhere (agentls policy list)"
	}
	return decisionApproved, "approved on the terminal"
}

// confirm asks a yes/no question about a hunk.
func (c *client) confirm(question string) bool {
	return c.decide(question, []string{command.ActionApprove, command.ActionDeny}) == command.ActionApprove
}

// editText lets the person at the terminal replace a proposed text
// (human_confirm "modify"); an empty line keeps it, EOF cancels.
func (c *client) editText(params jsonrpc2.RawMessage) (any, error) {
	var p command.EditTextParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	resume := c.out.pauseSpinner()
	defer resume()
	fmt.Fprintf(c.o.Stderr, "\n%s\ncurrent: %s\nnew text (empty keeps it): ", sandbox.VisibleText(p.Prompt), sandbox.VisibleText(p.Text))
	line, err := c.readLine()
	if (err != nil && line == "") || c.ctx.Err() != nil {
		return &command.EditTextResult{Text: nil}, nil
	}
	if line = strings.TrimRight(line, "\r\n"); line == "" {
		line = p.Text
	}
	c.out.approval(p.Prompt, line, decisionEdited, "edited on the terminal")
	return &command.EditTextResult{Text: &line}, nil
}
