package session

import (
	"fmt"
	"os"
	"path/filepath"
)

// A run whose run record cannot be written (disk full) keeps it pending
// (see [Session.append]) and burns its number with an empty marker file,
// SESSION.run-N.burned: an empty file needs no data block, so it can be
// created on a full disk. Every Begin, in any process, numbers its run
// after the last burned one, so a run ID is never given twice even when
// the process ends before space returns (issue 26). The marker goes once
// the pending records are written.

// burnSuffix ends the name of a burned run's marker.
const burnSuffix = ".burned"

// burn marks run n as taken; s.mu must be held.
func (s *Session) burn(n int) {
	if s.st.dir == "" {
		return
	}
	path := s.burnPath(n)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		s.st.warn(fmt.Sprintf("agentls: run %s could not be recorded, and its number could not be reserved (%v)", RunID(s.ID, n), err))
		return
	}
	f.Close()
	s.burned = append(s.burned, path)
}

// unburn removes this process's markers once their runs are recorded;
// s.mu must be held.
func (s *Session) unburn() {
	for _, p := range s.burned {
		_ = os.Remove(p)
	}
	s.burned = nil
}

// nextRun is the number of the run after run last of the log: the first
// one no marker burns. Markers follow the log's last run one after the
// other (each is burned as the next number), so this is one stat when
// none is burned.
func (s *Session) nextRun(last int) int {
	n := last + 1
	if s.st.dir == "" {
		return n
	}
	for {
		if _, err := os.Stat(s.burnPath(n)); err != nil {
			return n
		}
		n++
	}
}

func (s *Session) burnPath(n int) string {
	return filepath.Join(s.st.dir, fmt.Sprintf("%s.run-%d%s", s.ID, n, burnSuffix))
}
