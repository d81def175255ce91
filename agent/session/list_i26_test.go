package session

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

// hugeSession writes a session whose one run has a message of size bytes
// and closes it, as a process that ended does.
func hugeSession(tb testing.TB, st *Store, size int) *Session {
	s, err := st.New()
	if err != nil {
		tb.Fatal(err)
	}
	r, err := s.Begin(tb.Context(), agent.ModeExecute, "read the big file")
	if err != nil {
		tb.Fatal(err)
	}
	r.Checkpoint([]agent.Message{{Role: agent.RoleUser, Content: "read the big file"},
		{Role: agent.RoleAssistant, Content: strings.Repeat("x", size)}})
	r.End(agent.StatusDone, 1, "done")
	s.Close()
	return s
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStore_A16_Issue26_ListReadsTheIndex: the list of sessions comes
// from their indexes, not their logs: a session with a 20 MB record is
// listed, with its counts, allocating under 1 MiB; a log changed after its
// index (another process's run) is read again.
func TestStore_A16_Issue26_ListReadsTheIndex(t *testing.T) {
	state := t.TempDir()
	st, err := Open(state, "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := hugeSession(t, st, 20<<20)
	fresh, err := Open(state, "/w", nil) // another process: nothing live
	if err != nil {
		t.Fatal(err)
	}
	var infos []Info
	n := allocated(func() { infos, err = fresh.List() })
	if err != nil || len(infos) != 1 || infos[0].ID != s.ID || infos[0].Messages != 2 || infos[0].Turns != 1 || infos[0].Task != "read the big file" {
		t.Fatalf("List: %+v, %v", infos, err)
	}
	if n > 1<<20 {
		t.Errorf("listing one session with a 20 MB record allocated %d bytes", n)
	}
	// Another process appends a run: the index is stale, the log is read.
	other, _ := Open(state, "/w", nil)
	o, err := other.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := o.Begin(t.Context(), agent.ModePlan, "more")
	r.Checkpoint(append(o.Messages(), agent.Message{Role: agent.RoleUser, Content: "more"}))
	o.mu.Lock()
	o.st.fsync(o.f)
	o.mu.Unlock()
	infos, err = fresh.List()
	if err != nil || len(infos) != 1 || infos[0].Runs != 2 || infos[0].Messages != 3 {
		t.Errorf("List after another process's run: %+v, %v", infos, err)
	}
	r.End(agent.StatusDone, 0, "")
	o.Close()
}

// TestStore_A16_Issue26_ListWithoutIndexBounded: a log without an index
// (an older agentls, a run still under way elsewhere) is read line by
// line, in bounded memory (under 8 MiB allocated, whatever the size of a
// record): a 20 MB record is counted, not held, and its checksum is still
// checked as it streams by.
func TestStore_A16_Issue26_ListWithoutIndexBounded(t *testing.T) {
	state := t.TempDir()
	st, err := Open(state, "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := hugeSession(t, st, 20<<20)
	list := func() []Info {
		t.Helper()
		if err := os.Remove(st.indexPath(s.ID)); err != nil {
			t.Fatal(err)
		}
		fresh, _ := Open(state, "/w", nil)
		var infos []Info
		if n := allocated(func() { infos, err = fresh.List() }); n > 8<<20 || err != nil || len(infos) != 1 {
			t.Fatalf("listing without an index: %d bytes allocated, %+v, %v", n, infos, err)
		}
		return infos
	}
	if info := list()[0]; info.Messages != 2 || info.Turns != 1 || info.Runs != 1 || info.Damaged != "" {
		t.Errorf("listed without an index: %+v", info)
	}
	// One byte of the big record changed: the listing says so.
	f, err := os.OpenFile(st.path(s.ID), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("y"), 10<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if info := list()[0]; !strings.Contains(info.Damaged, "checksum mismatch") {
		t.Errorf("a damaged big record: %+v", info)
	}
}
