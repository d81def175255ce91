package session

import "time"

// groupCommit is how long the background fsync waits before it starts,
// so that turns that follow each other quickly (a fast local model, a
// tool loop, a scripted replay) share one fsync instead of paying one
// each: ten fsyncs were 5 % of the server's CPU in the issue 16 replay.
// The records are written at once, so agentls crashing loses nothing;
// only a power failure within this window loses them, as if it had come
// that much earlier. [Session.Close] does not wait for it.
const groupCommit = 50 * time.Millisecond

// syncSoon has the log fsynced in the background, so that a turn's
// records reach the disk while the model thinks instead of before the
// next request is sent (issue 16: an fsync here is about a millisecond
// on every turn's critical path). At most one fsync runs; records
// written meanwhile are covered by the next one. [Session.Close] fsyncs
// what is left. s.mu must be held.
func (s *Session) syncSoon() {
	s.syncWanted = true
	if s.syncing != nil {
		return
	}
	done, hurry := make(chan struct{}), make(chan struct{})
	s.syncing, s.hurry = done, hurry
	go s.syncLoop(done, hurry, s.st.syncDelay)
}

// syncLoop waits up to delay (or until Close hurries it), then fsyncs
// the log until no record is waiting for it. A file replaced or closed
// meanwhile is no longer its business: Close and the repair of a damaged
// log make their own files durable.
func (s *Session) syncLoop(done, hurry chan struct{}, delay time.Duration) {
	defer close(done)
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-hurry:
			t.Stop()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.syncWanted && s.f != nil {
		s.syncWanted = false
		f := s.f
		s.mu.Unlock()
		err := s.st.fsync(f)
		s.mu.Lock()
		if err != nil && f == s.f {
			s.failed(err)
		}
	}
	s.syncWanted = false
	s.syncing = nil
	if s.hurry == hurry {
		s.hurry = nil
	}
}

// waitSynced waits for the background fsync, if one runs.
func (s *Session) waitSynced() {
	s.mu.Lock()
	done := s.syncing
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}
