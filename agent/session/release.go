package session

import "log/slog"

// A server runs for days and begins thousands of runs, each in a session
// of its own or continuing one; a session it kept after its run would
// keep its log file open and its conversation in memory for as long as
// the server runs (issue 26: 400 plan runs, 400 more open files and
// 42 MiB). So a [Store] counts the references it hands out and closes a
// session when the last one is released: the next run that continues it
// reads it again from its log (and its index tells listings about it
// meanwhile). Counting, rather than keeping the last few sessions open,
// holds exactly the sessions some command uses: runs queued on one
// session share its one value, and so its queue (A11), for as long as any
// of them holds it, and no bound has to be guessed. Reading a session
// again costs one read of its log, once per run that continues it.

// Release gives back a reference that [Store.New] or [Store.Session]
// handed out. When the last one is given back, the session is closed (see
// [Session.Close]) and the store forgets it; it must not be used
// afterwards. A session kept in memory (a store without a directory) stays:
// the store is its only copy. Calls beyond the references handed out do
// nothing.
func (s *Session) Release() {
	st := s.st
	st.mu.Lock()
	if s.refs > 0 {
		s.refs--
	}
	if s.refs > 0 || st.dir == "" || st.live[s.ID] != s {
		st.mu.Unlock()
		return
	}
	delete(st.live, s.ID)
	done := make(chan struct{})
	st.closing[s.ID] = done
	st.mu.Unlock()
	if err := s.Close(); err != nil {
		st.log.Warn("Session not closed", slog.String("session", s.ID), slog.String("err", err.Error()))
	}
	st.mu.Lock()
	delete(st.closing, s.ID)
	st.mu.Unlock()
	close(done)
}

// waitClosedLocked waits, st.mu held, until session id is no longer
// being closed: its log is complete and its file closed before anyone
// reads it again.
func (st *Store) waitClosedLocked(id string) {
	for {
		done, ok := st.closing[id]
		if !ok {
			return
		}
		st.mu.Unlock()
		<-done
		st.mu.Lock()
	}
}
