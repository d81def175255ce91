package lspserver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// finish turns the outcome into the command result: a run that reports
// findings publishes them as diagnostics, and a run that proposed edits
// gets them onto the disk (or says which are not yet). ctx is the
// request's context.
func (r *run) finish(ctx context.Context, out *agent.Outcome) *command.Result {
	s := r.s
	res := &command.Result{SessionID: r.ar.SessionID, RunID: r.ar.RunID, Status: command.Status(out.Status), Summary: boundSummary(out.Summary, r.ar.Log),
		Steps: wireSteps(out.Steps), Incomplete: out.Incomplete}
	if r.mode.Findings() {
		if out.Status == agent.StatusDone {
			s.fallbackFindings(r.ar.Ctx, r.sink, out.Summary, r.ar.Log)
		}
		r.sink.publish(ctx)
		for _, f := range r.sink.all() {
			res.Findings = append(res.Findings, command.Finding(f))
		}
	}
	if !r.mode.ReadOnly() && ctx.Err() == nil {
		if left := r.prop.Flush(ctx); len(left) > 0 {
			res.Summary = strings.TrimSpace(res.Summary + fmt.Sprintf("\n(not saved to disk yet: %s)", strings.Join(left, ", ")))
		}
	}
	res.Edits = r.counts.wire()
	return res
}

// fallbackFindings turns "path:line: message" lines of the final answer
// into findings; those the sink refuses are dropped with an event.
func (s *Server) fallbackFindings(ctx context.Context, sink *findingSink, text string, log *slog.Logger) {
	for _, f := range tools.ParseFindings(text) {
		if err := sink.Report(ctx, f); err != nil {
			log.Info("Dropped finding", slog.String("why", err.Error()))
			s.logMessage(ctx, protocol.MessageTypeInfo, "agentls: dropped a finding: "+err.Error())
		}
	}
}

// maxSummaryBytes bounds the summary of a command result: a runaway model
// answer must not become a 10 MB message to the editor.
const maxSummaryBytes = 64 << 10

// boundSummary cuts a summary over maxSummaryBytes, at a character
// boundary, and says so; the whole answer stays in the run's messages
// (the session).
func boundSummary(s string, log *slog.Logger) string {
	if len(s) <= maxSummaryBytes {
		return s
	}
	head := strings.ToValidUTF8(s[:maxSummaryBytes], "")
	if i := strings.LastIndexByte(head, '\n'); i > maxSummaryBytes*3/4 {
		head = head[:i] // end on a whole line when one is near
	}
	log.Info("Summary cut for the editor", slog.Int("bytes", len(s)), slog.Int("kept", len(head)))
	return head + fmt.Sprintf("\n\n[cut: %d more bytes; the full answer is kept in the session]", len(s)-len(head))
}
