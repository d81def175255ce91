package headless

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/lspserver/command"
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
		var p struct {
			URIs []string `json:"uris"`
		}
		_ = json.Unmarshal(params, &p)
		return map[string]any{"saved": p.URIs}, nil
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
		var p struct {
			Value struct {
				Kind, Title, Message string
			} `json:"value"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.out.progress(p.Value.Kind, p.Value.Title, p.Value.Message)
		}
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.out.log(p.Type, p.Message)
		}
	case "textDocument/publishDiagnostics":
		c.out.diagnostics(c.root, params)
	}
}

// showMessageRequest answers a question: on the terminal, or by the
// --approve mode. Anything but a clear yes is no.
func (c *client) showMessageRequest(params jsonrpc2.RawMessage) (any, error) {
	var p struct {
		Message string `json:"message"`
		Actions []struct {
			Title string `json:"title"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
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
	return map[string]string{"title": pick}, nil
}

// decide returns the chosen action title, or "" for no answer.
func (c *client) decide(question string, actions []string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	approve := ""
	for _, a := range actions {
		if a == command.ActionApprove || strings.HasPrefix(a, "I saved") {
			approve = a
		}
	}
	switch c.o.Approve {
	case ApproveAll:
		c.out.approval(question, approve, "approved (--approve=all)")
		return approve
	case ApproveNever:
		c.out.approval(question, "", "denied (--approve=never)")
		return ""
	}
	fmt.Fprintf(c.o.Stderr, "\n%s\n", question)
	for i, a := range actions {
		fmt.Fprintf(c.o.Stderr, "  [%d] %s\n", i+1, a)
	}
	fmt.Fprintf(c.o.Stderr, "choice (number, empty = no): ")
	line, _ := c.in.ReadString('\n')
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "%d", &n); err == nil && n >= 1 && n <= len(actions) {
		c.out.approval(question, actions[n-1], "answered on the terminal")
		return actions[n-1]
	}
	c.out.approval(question, "", "no answer: denied")
	return ""
}

// confirm asks a yes/no question about a hunk.
func (c *client) confirm(question string) bool {
	return c.decide(question, []string{command.ActionApprove, command.ActionDeny}) == command.ActionApprove
}

// editText lets the person at the terminal replace a proposed text
// (human_confirm "modify"); an empty line keeps it, EOF cancels.
func (c *client) editText(params jsonrpc2.RawMessage) (any, error) {
	var p struct {
		Prompt string `json:"prompt"`
		Text   string `json:"text"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.o.Stderr, "\n%s\ncurrent: %s\nnew text (empty keeps it): ", p.Prompt, p.Text)
	line, err := c.in.ReadString('\n')
	if err != nil && line == "" {
		return map[string]any{"text": nil}, nil
	}
	if line = strings.TrimRight(line, "\r\n"); line == "" {
		line = p.Text
	}
	c.out.approval(p.Prompt, line, "edited on the terminal")
	return map[string]any{"text": line}, nil
}
