package headless

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// Revert runs agentls.revert (A16) with the in-process server: the files
// the run changed are restored through workspace/applyEdit, which this
// client writes to disk like any approved edit. It prints the result and
// returns the exit code: 0 when every file was restored, ExitNotLanded
// (3) when the revert ran but left a file as it is (changed since, or not
// written), 1 when it failed — the codes of a run (issue 25).
func Revert(ctx context.Context, o *Options, a *command.RevertArgs) int {
	var res command.RevertResult
	err := connect(ctx, o, nil, func(c *client) error {
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		params := &protocol.ExecuteCommandParams{Command: command.Revert, Arguments: []protocol.LSPAny{raw}}
		var out json.RawMessage
		if _, err := c.conn.Call(ctx, "workspace/executeCommand", params, &out); err != nil {
			return err
		}
		return json.Unmarshal(out, &res)
	})
	p := &printer{json: o.JSON, w: o.Stdout, errw: o.Stderr}
	if err != nil {
		p.failure(err)
		return 1
	}
	p.revert(&res)
	if len(res.Stale) > 0 || len(res.Failed) > 0 {
		return ExitNotLanded
	}
	return 0
}

// failure prints a command's wire error; a run cancelled (Ctrl-C) says
// so in plain words.
func (p *printer) failure(err error) {
	msg := err.Error()
	if errors.Is(err, context.Canceled) {
		msg = "cancelled"
	}
	if p.json {
		p.event(errorEvent{Data: wireData(err), Message: msg, Type: "error"})
		return
	}
	p.text(p.errw, "agentls: %s\n", sandbox.VisibleText(msg))
}

// revert prints a revert's result.
func (p *printer) revert(r *command.RevertResult) {
	if p.json {
		p.typed("revert", r)
		return
	}
	v := sandbox.Visible
	p.text(p.w, "\nreverted %s (run %s)\n", v(r.Reverted), v(r.RunID))
	for _, f := range r.Restored {
		p.text(p.w, "  restored %s\n", v(f))
	}
	for _, f := range r.Stale {
		p.text(p.w, "  stale    %s: %s (left as it is)\n", v(f.Path), sandbox.VisibleText(f.Reason))
	}
	for _, f := range r.Failed {
		p.text(p.w, "  failed   %s: %s\n", v(f.Path), sandbox.VisibleText(f.Reason))
	}
}
