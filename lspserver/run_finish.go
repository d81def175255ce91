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

// finishRun turns the outcome into the command result: a run that reports
// findings publishes them as diagnostics, and a run that proposed edits
// gets them onto the disk (or says which are not yet). ctx is the
// request's context, rctx the run's.
func (s *Server) finishRun(ctx, rctx context.Context, r *run, out *agent.Outcome) *command.Result {
	res := &command.Result{SessionID: r.id, RunID: r.runID, Status: command.Status(out.Status), Summary: out.Summary,
		Steps: wireSteps(out.Steps), Incomplete: out.Incomplete}
	if r.mode.Findings() {
		if out.Status == agent.StatusDone {
			s.fallbackFindings(rctx, r.sink, out.Summary, r.log)
		}
		r.sink.publish(ctx)
		for _, f := range r.sink.all() {
			res.Findings = append(res.Findings, command.Finding(f))
		}
	}
	if !r.mode.ReadOnly() && ctx.Err() == nil {
		if left := r.prop.flush(ctx); len(left) > 0 {
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
