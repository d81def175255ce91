package session

import (
	"os"
	"path/filepath"
)

// Discard removes a session whose only run never got an answer from the
// model — a run that failed at its first request (a rejected key, an
// unreachable server, a stall) or was cancelled before it — so that no
// empty session is left in the list and `--continue` finds the session
// before it (issue 25). Its log, index and checkpoints are removed and the
// reference is released. A session with a turn of the model, more than one
// run, a changed file or another reference is kept (and released), and
// Discard reports false. A session in memory is only released.
func (s *Session) Discard() bool {
	st := s.st
	st.mu.Lock()
	only := s.refs == 1
	st.mu.Unlock()
	s.mu.Lock()
	empty := s.turns == 0 && len(s.runs) <= 1 && !s.changedLocked() && len(s.pending) == 0
	s.mu.Unlock()
	s.Release()
	if !only || !empty || st.dir == "" {
		return false
	}
	_ = os.Remove(st.path(s.ID))
	_ = os.Remove(st.indexPath(s.ID))
	_ = os.RemoveAll(filepath.Join(st.dir, s.ID+".files"))
	return true
}

// changedLocked reports whether a run of s recorded a changed file; s.mu
// held.
func (s *Session) changedLocked() bool {
	for _, r := range s.runs {
		if len(r.changes) > 0 {
			return true
		}
	}
	return false
}
