package lspserver

import (
	"context"
	"log/slog"

	"go.lsp.dev/protocol"
)

// watchAudit makes the first audit write failure loud (T10, A14): the log
// and the user hear of it once; later failures are only counted, and
// Serve logs the count when it ends.
func (s *Server) watchAudit() {
	s.opts.Audit.Notify(func(err error) {
		s.log.Warn("Audit log write failed; decisions are no longer recorded", slog.String("err", err.Error()))
		if s.conn == nil {
			return
		}
		params := &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
			Message: "agentls: the audit log could not be written (" + err.Error() + "); tool decisions are not being recorded"}
		if err := s.conn.Notify(context.Background(), "window/showMessage", params); err != nil {
			s.log.Debug("showMessage failed", slog.String("err", err.Error()))
		}
	})
}

// auditSummary logs how many audit records were lost on this connection.
func (s *Server) auditSummary() {
	if n, err := s.opts.Audit.Health(); n > 0 {
		s.log.Warn("Audit records lost", slog.Int("records", n), slog.String("last_err", err.Error()))
	}
}
