package lspserver

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentls/agentls/sandbox"
)

// staleWalkLimit bounds the entries the start-up cleanup looks at.
const staleWalkLimit = 200_000

// cleanTemps removes, in the background, the temporary files of atomic
// writes that a killed agentls left in the workspace (#12): only our own
// exact name pattern, only files older than this server. Serve waits for
// it; exit stops it.
func (s *Server) cleanTemps(root string) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		r, err := sandbox.OpenRoot(root)
		if err != nil {
			return
		}
		defer r.Close()
		removed, err := r.RemoveStaleTemps(s.connCtx, s.started, staleWalkLimit)
		for _, p := range removed {
			s.log.Info("Removed a stale temporary file of agentls", slog.String("path", p))
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			s.log.Debug("Stale temporary files: cleanup incomplete", slog.String("err", err.Error()))
		}
	}()
}
