package session

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
	done := make(chan struct{})
	s.syncing = done
	go s.syncLoop(done)
}

// syncLoop fsyncs the log until no record is waiting for it. A file
// replaced or closed meanwhile is no longer its business: Close and the
// repair of a damaged log make their own files durable.
func (s *Session) syncLoop(done chan struct{}) {
	defer close(done)
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
