package session

import (
	"slices"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent"
)

// A16, issue 26 item 1: the last reference given back closes the
// session's log and the store forgets it; the next use reads it again,
// whole. Until then every holder shares one value.
func TestStore_A16_Issue26_ReleaseClosesTheLastReference(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	again, err := st.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again != s {
		t.Fatal("a session in use is not shared: its runs would not queue")
	}
	runTurns(t, s, agent.ModePlan, []agent.Message{user("hi"), said("hello")}).End(agent.StatusDone, 1, "hello")
	s.Release()
	if s.f == nil {
		t.Fatal("the log was closed while a reference was held")
	}
	again.Release()
	if s.f != nil {
		t.Error("the last reference given back left the log open")
	}
	st.mu.Lock()
	_, kept := st.live[s.ID]
	st.mu.Unlock()
	if kept {
		t.Error("the store still holds the released session")
	}
	back, err := st.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Release()
	if back == s || len(back.Messages()) != 2 || len(back.Runs()) != 1 {
		t.Errorf("read again: same value %v, %d messages, %d runs; want a new value with 2 and 1", back == s, len(back.Messages()), len(back.Runs()))
	}
	r := runTurns(t, back, agent.ModeExecute)
	r.End(agent.StatusDone, 0, "")
	if r.N != 2 {
		t.Errorf("the run after the reload is run %d, want 2", r.N)
	}
}

// A16: a store in memory is its sessions' only copy: releasing one keeps
// it.
func TestStore_A16_Issue26_InMemoryKept(t *testing.T) {
	st, _ := newStore(t, "")
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	runTurns(t, s, agent.ModePlan, []agent.Message{user("hi")}).End(agent.StatusDone, 0, "")
	s.Release()
	back, err := st.Session(s.ID)
	if err != nil || back != s || len(back.Messages()) != 1 {
		t.Fatalf("after release: %v, same %v", err, back == s)
	}
}

// A11, A16: commands that continue one session, each taking its
// reference, running and releasing it while others reload it, still run
// one at a time and number their runs without a gap or a repeat.
func TestStore_A11_Issue26_ReleaseAndReloadKeepOrder(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID
	s.Release()
	const workers, each = 4, 10
	var mu sync.Mutex
	var got []int
	running := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				sess, err := st.Session(id)
				if err != nil {
					t.Error(err)
					return
				}
				r, err := sess.Begin(t.Context(), agent.ModePlan, "go")
				if err != nil {
					t.Error(err)
					sess.Release()
					return
				}
				mu.Lock()
				running++
				if running > 1 {
					t.Error("two runs of one session at once")
				}
				got = append(got, r.N)
				mu.Unlock()
				r.Checkpoint(append(r.History(), user("step")))
				mu.Lock()
				running--
				mu.Unlock()
				r.End(agent.StatusDone, 0, "")
				sess.Release()
			}
		})
	}
	wg.Wait()
	slices.Sort(got)
	for i, n := range got {
		if n != i+1 {
			t.Fatalf("run numbers %v: want 1..%d", got, workers*each)
		}
	}
	back, err := st.Session(id)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Release()
	if n := len(back.Messages()); n != workers*each {
		t.Errorf("%d messages in the log, want %d", n, workers*each)
	}
}
