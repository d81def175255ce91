package session

import (
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentls/agentls/agent"
)

// fullDisk makes st's log writes fail with ENOSPC while *full is set.
func fullDisk(st *Store, full *atomic.Bool) {
	st.writeLog = func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			return 0, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
		}
		return f.Write(b)
	}
}

// oneRun runs one execute run that changes a.go.
func oneRun(t *testing.T, s *Session, what string) *Run {
	t.Helper()
	r, err := s.Begin(t.Context(), agent.ModeExecute, what)
	if err != nil {
		t.Fatal(err)
	}
	r.KeepAll([]Kept{{Path: "a.go", Old: []byte("old " + what), Exists: true}})
	r.Changed("a.go", []byte("new "+what), true)
	r.Checkpoint(append(s.Messages(), agent.Message{Role: agent.RoleUser, Content: what},
		agent.Message{Role: agent.RoleAssistant, Content: "did " + what}))
	r.End(agent.StatusDone, 1, what)
	return r
}

// TestStore_A11_A16_Issue26_DiskFullRecordedWhenSpaceReturns: with a full
// disk, run 2 warns and goes on; once space returns (same process, as in
// serve), run 3 is numbered 3, and run 2 is in the log with its messages
// and the file it changed, so revert finds it.
func TestStore_A11_A16_Issue26_DiskFullRecordedWhenSpaceReturns(t *testing.T) {
	state := t.TempDir()
	var warned []string
	s, full := fullDiskSession(t, state, &Options{Warn: func(m string) { warned = append(warned, m) }})
	oneRun(t, s, "one")
	full.Store(true)
	if r2 := oneRun(t, s, "two"); r2.N != 2 || len(warned) == 0 {
		t.Fatalf("run 2: N %d, warnings %q", r2.N, warned)
	}
	full.Store(false)
	if r3 := oneRun(t, s, "three"); r3.N != 3 {
		t.Errorf("the run after space returned is run %d, want 3", r3.N)
	}
	s.Close()
	again, err := Open(state, "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := again.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ns []int
	for _, ri := range got.Runs() {
		ns = append(ns, ri.N)
		if ri.N == 2 && (len(ri.Changes) != 1 || ri.Changes[0].Path != "a.go" || ri.Status != "done") {
			t.Errorf("run 2 as recorded: %+v", ri)
		}
	}
	if !slices.Equal(ns, []int{1, 2, 3}) {
		t.Errorf("runs in the log: %v, want [1 2 3]", ns)
	}
	if m := got.Messages(); len(m) != 6 || m[2].Content != "two" {
		t.Errorf("messages in the log: %d %+v", len(m), m)
	}
}

// TestStore_A16_Issue26_DiskFullBurnsTheRunID: a process whose run 2
// could not be recorded ends while the disk is still full; the next
// process (space freed) never numbers its run 2.
func TestStore_A16_Issue26_DiskFullBurnsTheRunID(t *testing.T) {
	state := t.TempDir()
	s, full := fullDiskSession(t, state, nil)
	oneRun(t, s, "one")
	full.Store(true)
	oneRun(t, s, "two")
	s.Close() // the process ends; the disk is still full
	next, err := Open(state, "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := next.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r := oneRun(t, s2, "three"); r.N != 3 {
		t.Errorf("the next process's run is %s: run 2's ID given again", r.ID)
	}
	s2.Close()
}

// fullDiskSession opens a store under state whose disk fills when full is
// set, and a new session in it.
func fullDiskSession(t *testing.T, state string, opts *Options) (*Session, *atomic.Bool) {
	t.Helper()
	st, err := Open(state, "/w", opts)
	if err != nil {
		t.Fatal(err)
	}
	full := new(atomic.Bool)
	fullDisk(st, full)
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	return s, full
}
