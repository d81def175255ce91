package session

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
)

// slowFsync makes every fsync wait for release and counts them.
func slowFsync(t *testing.T, st *Store) (release func(), count *atomic.Int32) {
	gate := make(chan struct{})
	count = new(atomic.Int32)
	st.mu.Lock()
	defer st.mu.Unlock()
	old := st.fsync
	st.fsync = func(f *os.File) error {
		<-gate
		count.Add(1)
		return f.Sync()
	}
	var once bool
	release = func() {
		if !once {
			once = true
			close(gate)
		}
	}
	t.Cleanup(func() {
		release()
		st.mu.Lock()
		st.fsync = old
		st.mu.Unlock()
	})
	return release, count
}

// beginRun starts a session in st and an execute run in it.
func beginRun(t *testing.T, st *Store) (*Session, *Run) {
	t.Helper()
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Begin(t.Context(), agent.ModeExecute, "change")
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

// TestSession_Issue16_TurnFsyncOffTheCriticalPath: a turn's checkpoint
// returns while its fsync is still running (the next model request does
// not wait for the disk), the records are in the file already, and
// Close makes them durable.
func TestSession_Issue16_TurnFsyncOffTheCriticalPath(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, r := beginRun(t, st)
	s.waitSynced()
	release, count := slowFsync(t, st)
	returned := make(chan struct{})
	go func() {
		r.Checkpoint([]agent.Message{user("task"), said("done")})
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("Checkpoint waited for its fsync")
	}
	data, err := os.ReadFile(st.path(s.ID))
	if err != nil || !contains(data, `"done"`) {
		t.Fatalf("the turn is not in the log before its fsync: %v\n%s", err, data)
	}
	release()
	s.waitSynced()
	if count.Load() == 0 {
		t.Fatal("the turn was never fsynced")
	}
	r.End(agent.StatusDone, 1, "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSession_Issue16_CheckpointOfAChangeIsDurableFirst: the record of a
// file's old content is fsynced before Keep returns, since the edit it
// makes revertible lands right after.
func TestSession_Issue16_CheckpointOfAChangeIsDurableFirst(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, r := beginRun(t, st)
	s.waitSynced()
	release, count := slowFsync(t, st)
	returned := make(chan struct{})
	go func() {
		r.Keep("a.go", []byte("v1"), true)
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("Keep returned before its record was fsynced")
	case <-time.After(100 * time.Millisecond):
	}
	release()
	<-returned
	if count.Load() == 0 {
		t.Fatal("no fsync")
	}
	r.End(agent.StatusDone, 1, "")
	s.Close()
}

func contains(data []byte, s string) bool { return strings.Contains(string(data), s) }

// TestSession_Issue16_QuickTurnsShareOneFsync: turns that come within
// the group-commit window share one fsync, their records are in the file
// at once, and Close makes them durable without waiting out the window.
func TestSession_Issue16_QuickTurnsShareOneFsync(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	st.syncDelay = time.Hour
	s, r := beginRun(t, st)
	release, count := slowFsync(t, st)
	release()
	msgs := []agent.Message{user("task")}
	for i := range 5 {
		msgs = append(msgs, said(fmt.Sprintf("turn %d", i)))
		r.Checkpoint(msgs)
	}
	time.Sleep(50 * time.Millisecond)
	if n := count.Load(); n != 0 {
		t.Errorf("%d fsyncs within the window, want none yet", n)
	}
	if data, _ := os.ReadFile(st.path(s.ID)); !contains(data, `"turn 4"`) {
		t.Fatalf("the turns are not in the log yet:\n%s", data)
	}
	r.End(agent.StatusDone, 1, "")
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Close waited out the window: %v", took)
	}
	if n := count.Load(); n != 1 {
		t.Errorf("%d fsyncs for five quick turns and the end, want 1", n)
	}
}

// TestKeepAll_S9_OneDurableWrite: a command's merge keeps a thousand
// files' previous states with one fsync, not one each (a build writes
// thousands of files), and the revert target lists them all.
func TestKeepAll_S9_OneDurableWrite(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, r := beginRun(t, st)
	s.waitSynced()
	release, count := slowFsync(t, st)
	release()
	files := make([]Kept, 1000)
	landed := make([]Landed, 1000)
	for i := range files {
		files[i] = Kept{Path: fmt.Sprintf("out/f%d", i)}
		landed[i] = Landed{Path: files[i].Path, Hash: Hash([]byte("x")), Exists: true}
	}
	files[0] = Kept{Path: "main.go", Old: []byte("package main\n"), Exists: true}
	files[1] = Kept{Path: "big.bin", Exists: true, TooBig: true}
	landed[0].Path, landed[1].Path = "main.go", "big.bin"
	errs := r.KeepAll(files)
	if n := count.Load(); n != 1 {
		t.Errorf("%d fsyncs for one merge, want 1", n)
	}
	if errs[0] != nil || errs[1] == nil {
		t.Errorf("errors: main.go %v, big.bin %v", errs[0], errs[1])
	}
	r.ChangedAll(landed)
	s.waitSynced() // the background fsync reads the store's fsync, which the cleanup restores
	info, err := s.RevertTarget(r.N)
	if err != nil || len(info.Changes) != 1000 {
		t.Fatalf("revert target: %v, %d changes", err, len(info.Changes))
	}
}
