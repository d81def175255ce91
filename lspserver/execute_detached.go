package lspserver

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// maxResultMessage bounds the model's answer in the window/showMessage
// that ends a detached run; the whole answer stays in the session.
const maxResultMessage = 8 << 10

// startDetached runs a command with [command.Args.Detach] (E19): the run
// is built as for any command (a bad target, no model or a broken policy
// is still the reply's error), then the reply names it at once, a
// [command.Started], and the run goes on. It reports as it goes with
// $/progress where the client offers it, and says that it started with a
// window/showMessage where not; its result, which no reply carries, is
// always a window/showMessage (resultMessage). The run's context keeps the
// request's values (its place in its session's line) but outlives the
// request: the end of the connection stops it, as do agentls.cancel and
// the progress's cancel; until it has started, so does the request's
// $/cancelRequest. Serve waits for it (s.bg).
func (s *Server) startDetached(ctx context.Context, mode agent.Mode, a *command.Args) (any, error) {
	sess, err := s.findSession(ctx, a.SessionID)
	if err != nil {
		return nil, err
	}
	release := func() {
		if sess != nil {
			sess.Release() // once the run has ended
		}
	}
	dctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	unlink := context.AfterFunc(s.connCtx, stop)
	untilStarted := context.AfterFunc(ctx, stop)
	r, err := s.newRun(dctx, runRequest{mode: mode, args: a, sess: sess})
	untilStarted()
	if err != nil {
		unlink()
		stop()
		release()
		return nil, err
	}
	s.mu.Lock()
	progress := s.caps.workDoneProgress
	s.mu.Unlock()
	if !progress {
		s.showMessage(dctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls %s started on %s: “%s” (run %s)",
			mode, r.rel, instructionTitle(a.Instruction), r.ar.RunID))
	}
	started := &command.Started{SessionID: r.ar.SessionID, RunID: r.ar.RunID, Started: true}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer release()
		defer stop()
		defer unlink()
		defer r.close()
		out := r.ar.Execute()
		res := r.finish(dctx, out)
		r.ar.End(out)
		typ, msg := resultMessage(mode, res, outcomeError(dctx, out))
		s.showMessage(dctx, typ, msg)
	}()
	return rawResult(started, nil)
}

// resultMessage is the window/showMessage that ends a detached run: its
// status, hunk counts, files created and deleted, findings, and the
// model's answer, control bytes made visible; or the run's error.
func resultMessage(mode agent.Mode, res *command.Result, err error) (protocol.MessageType, string) {
	if err != nil {
		return protocol.MessageTypeError, fmt.Sprintf("agentls %s failed: %s", mode, sandbox.Visible(err.Error()))
	}
	typ := protocol.MessageTypeInfo
	switch res.Status {
	case command.StatusCancelled:
		typ = protocol.MessageTypeWarning
	case command.StatusFailed:
		typ = protocol.MessageTypeError
	}
	var b strings.Builder
	fmt.Fprintf(&b, "agentls %s %s (run %s)", mode, res.Status, res.RunID)
	if !mode.ReadOnly() {
		e := res.Edits
		fmt.Fprintf(&b, "; edits: %d hunks proposed, %d applied, %d rejected, %d stale", e.Proposed, e.Applied, e.Rejected, e.Stale)
		if len(e.Created) > 0 {
			fmt.Fprintf(&b, "; created %s", sandbox.Visible(strings.Join(e.Created, ", ")))
		}
		if len(e.Deleted) > 0 {
			fmt.Fprintf(&b, "; deleted %s", sandbox.Visible(strings.Join(e.Deleted, ", ")))
		}
	}
	if mode.Findings() {
		fmt.Fprintf(&b, "; findings: %d (shown as diagnostics)", len(res.Findings))
	}
	if summary := strings.TrimSpace(res.Summary); summary != "" {
		if len(summary) > maxResultMessage {
			summary = strings.ToValidUTF8(summary[:maxResultMessage], "") + "\n[cut: the whole answer is kept in the session]"
		}
		b.WriteString("\n\n" + sandbox.VisibleText(summary))
	}
	return typ, b.String()
}
