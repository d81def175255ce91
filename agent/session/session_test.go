package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
)

func user(s string) agent.Message { return agent.Message{Role: agent.RoleUser, Content: s} }
func said(s string) agent.Message { return agent.Message{Role: agent.RoleAssistant, Content: s} }
func call(id string) agent.Message {
	return agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`}}}
}
func result(id, s string) agent.Message {
	return agent.Message{Role: agent.RoleTool, ToolCallID: id, Content: s}
}

// newStore opens a store of workspace /w in a fresh state directory, and
// collects its warnings.
func newStore(t *testing.T, state string) (*Store, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var warns []string
	st, err := Open(state, "/w", &Options{Warn: func(m string) {
		mu.Lock()
		defer mu.Unlock()
		warns = append(warns, m)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return st, &warns
}

// reopen is a new process: a store of its own over the same directory.
func reopen(t *testing.T, st *Store) (*Store, *[]string) {
	t.Helper()
	return newStore(t, filepath.Dir(filepath.Dir(st.dir)))
}

// runTurns begins a run and checkpoints the conversation after each of
// the given growths, as the loop does.
func runTurns(t *testing.T, s *Session, mode agent.Mode, steps ...[]agent.Message) *Run {
	t.Helper()
	r, err := s.Begin(t.Context(), mode, "task of "+mode.String()+"\nsecond line")
	if err != nil {
		t.Fatal(err)
	}
	msgs := r.History()
	for _, st := range steps {
		msgs = append(msgs, st...)
		r.Checkpoint(msgs)
	}
	return r
}

// A11: a session written by one process is read back whole by the next:
// its messages, runs and listing.
func TestStore_A11_RoundTrip(t *testing.T) {
	st, warns := newStore(t, t.TempDir())
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	r := runTurns(t, s, agent.ModePlan, []agent.Message{user("plan it")}, []agent.Message{call("c1"), result("c1", "package a")}, []agent.Message{said("the plan")})
	r.End(agent.StatusDone, 2, "the plan\nmore")
	r2 := runTurns(t, s, agent.ModeExecute, []agent.Message{user("do it")}, []agent.Message{said("done")})
	r2.End(agent.StatusDone, 1, "done")
	want := []agent.Message{user("plan it"), call("c1"), result("c1", "package a"), said("the plan"), user("do it"), said("done")}

	st2, _ := reopen(t, st)
	got, err := st2.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got.Messages()); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if got.Recovery() != nil {
		t.Errorf("recovery of an intact log: %v", got.Recovery())
	}
	runs := got.Runs()
	if len(runs) != 2 || runs[0].ID != s.ID+"-1" || runs[1].Mode != "execute" || runs[0].Status != "done" || runs[0].Summary != "the plan" || runs[0].Instruction != "task of plan" {
		t.Errorf("runs: %+v", runs)
	}
	if id, err := st2.Latest(); err != nil || id != s.ID {
		t.Errorf("latest = %q, %v", id, err)
	}
	infos, err := st2.List()
	if err != nil || len(infos) != 1 {
		t.Fatalf("list: %+v, %v", infos, err)
	}
	if i := infos[0]; i.Mode != "plan,execute" || i.Turns != 3 || i.Runs != 2 || i.Task != "task of plan" || i.Messages != 6 || i.Damaged != "" {
		t.Errorf("info: %+v", i)
	}
	if len(*warns) != 0 {
		t.Errorf("warnings: %q", *warns)
	}
}

// A11: files are 0600 in 0700 directories, under the state directory and
// keyed by the workspace, never in it.
func TestStore_A11_Private(t *testing.T) {
	state := t.TempDir()
	st, _ := newStore(t, state)
	s, _ := st.New()
	r := runTurns(t, s, agent.ModeExecute, []agent.Message{user("x")})
	if err := r.Keep("a.go", []byte("old"), true); err != nil {
		t.Fatal(err)
	}
	r.End(agent.StatusDone, 1, "")
	if !strings.HasPrefix(st.Dir(), filepath.Join(state, "sessions")+"/") {
		t.Errorf("dir %s is not under the state directory", st.Dir())
	}
	err := filepath.Walk(filepath.Join(state, "sessions"), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := Open(state, "/other", nil)
	if other.Dir() == st.Dir() {
		t.Error("two workspaces share a directory")
	}
}

// A11: a rewritten conversation (compaction) is one reset record, and the
// next process reads the rewritten one.
func TestStore_A9_ResetAfterCompaction(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, _ := st.New()
	r := runTurns(t, s, agent.ModeExecute, []agent.Message{user("task"), call("c1"), result("c1", strings.Repeat("x", 1000))})
	compacted := []agent.Message{user("task"), user("[Summary] read a.go"), said("next")}
	r.Checkpoint(compacted)
	r.Checkpoint(append(compacted, said("more")))
	r.End(agent.StatusDone, 2, "")
	log, _ := os.ReadFile(st.path(s.ID))
	if n := bytes.Count(log, []byte(`{"k":"reset"`)); n != 1 {
		t.Errorf("%d reset records, want 1:\n%s", n, log)
	}
	st2, _ := reopen(t, st)
	got, _ := st2.Session(s.ID)
	if d := cmp.Diff(append(compacted, said("more")), got.Messages()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// writeSession writes a session of three runs and returns its log.
func writeSession(t *testing.T, st *Store) (*Session, []byte) {
	t.Helper()
	s, _ := st.New()
	for i := range 3 {
		id := fmt.Sprintf("c%d", i)
		r := runTurns(t, s, agent.ModeExecute, []agent.Message{user(fmt.Sprintf("task %d", i))}, []agent.Message{call(id), result(id, "r")}, []agent.Message{said("ok")})
		r.End(agent.StatusDone, 2, "ok")
	}
	log, err := os.ReadFile(st.path(s.ID))
	if err != nil {
		t.Fatal(err)
	}
	return s, log
}

// A11: a last line cut off by a crash is dropped and reported; the log is
// cut back, so the next append is readable; no copy is kept.
func TestStore_A11_TornTail(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, log := writeSession(t, st)
	cut := log[:len(log)-10]
	if err := os.WriteFile(st.path(s.ID), cut, 0o600); err != nil {
		t.Fatal(err)
	}
	st2, warns := reopen(t, st)
	got, err := st2.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	rec := got.Recovery()
	if rec == nil || rec.DroppedRecords != 1 || rec.MovedTo != "" || !strings.Contains(rec.Reason, "cut off") || got.ID != s.ID {
		t.Fatalf("recovery %+v", rec)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "dropped 1 records") {
		t.Errorf("warnings %q", *warns)
	}
	if n := len(got.Messages()); n != 12 {
		t.Errorf("%d messages, want 12 (the end record was cut)", n)
	}
	r := runTurns(t, got, agent.ModePlan, []agent.Message{user("again")})
	r.End(agent.StatusDone, 0, "")
	st3, _ := reopen(t, st)
	again, _ := st3.Session(s.ID)
	if again.Recovery() != nil || len(again.Messages()) != 13 {
		t.Errorf("after the repair: recovery %v, %d messages", again.Recovery(), len(again.Messages()))
	}
	if m, _ := filepath.Glob(st.path(s.ID) + ".corrupt-*"); len(m) != 0 {
		t.Errorf("a cut tail kept a copy: %v", m)
	}
}

// A11: a damaged line in the middle, even one that still parses as JSON,
// is found by its checksum; the readable prefix is kept, the damaged file
// is kept aside, the next run appends to a clean log, and the other
// sessions are untouched.
func TestStore_A11_CorruptMiddle(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	other, otherLog := writeSession(t, st)
	s, log := writeSession(t, st)
	// Change one character of a message's content in the middle: still
	// valid JSON.
	i := bytes.Index(log, []byte(`"content":"task 1"`))
	if i < 0 {
		t.Fatalf("no task 1 in\n%s", log)
	}
	bad := bytes.Clone(log)
	bad[i+len(`"content":"task `)] = '7'
	if err := os.WriteFile(st.path(s.ID), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	st2, warns := reopen(t, st)
	got, err := st2.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	rec := got.Recovery()
	if rec == nil || rec.Reason != "bad record: checksum mismatch" || rec.MovedTo == "" || rec.KeptMessages != 4 || rec.DroppedRecords < 5 {
		t.Fatalf("recovery %+v", rec)
	}
	if kept, err := os.ReadFile(rec.MovedTo); err != nil || !bytes.Equal(kept, bad) {
		t.Errorf("damaged copy: %v", err)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "recovered") {
		t.Errorf("warnings %q", *warns)
	}
	if d := cmp.Diff([]agent.Message{user("task 0"), call("c0"), result("c0", "r"), said("ok")}, got.Messages()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	r := runTurns(t, got, agent.ModePlan, []agent.Message{user("again")})
	r.End(agent.StatusDone, 0, "")
	st3, _ := reopen(t, st)
	again, _ := st3.Session(s.ID)
	if again.Recovery() != nil || len(again.Messages()) != 5 {
		t.Errorf("after the repair: recovery %v, %d messages", again.Recovery(), len(again.Messages()))
	}
	if now, _ := os.ReadFile(st.path(other.ID)); !bytes.Equal(now, otherLog) {
		t.Error("another session's log changed")
	}
}

// A11: a log whose header is unreadable starts a new session, said so;
// the damaged one is kept aside and no longer listed.
func TestStore_A11_CorruptHeader(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, log := writeSession(t, st)
	bad := append([]byte("garbage\n"), log...)
	if err := os.WriteFile(st.path(s.ID), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	st2, warns := reopen(t, st)
	infos, _ := st2.List()
	if len(infos) != 1 || infos[0].Damaged == "" {
		t.Errorf("list: %+v", infos)
	}
	got, err := st2.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec := got.Recovery(); rec == nil || !rec.Fresh || got.ID == s.ID || len(got.Messages()) != 0 || rec.From != s.ID {
		t.Fatalf("got %s, recovery %+v", got.ID, rec)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "a new session starts") {
		t.Errorf("warnings %q", *warns)
	}
	// Issue 25: a second look-up of the old ID (the server's handler after
	// its read loop) finds the session that took its place, not the
	// damaged one and not "no such session".
	again, err := st2.Session(s.ID)
	if err != nil || again.ID != got.ID {
		t.Errorf("the old ID looked up again: %v, %v; want the new session %s", again, err, got.ID)
	}
}

// A11: a write that fails (disk full) warns once, the conversation goes
// on, nothing half-written stays, and the messages not written are
// written at the next checkpoint that succeeds.
func TestStore_A11_DiskFull(t *testing.T) {
	st, warns := newStore(t, t.TempDir())
	s, _ := st.New()
	r := runTurns(t, s, agent.ModeExecute, []agent.Message{user("task")})
	good := s.f
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	s.mu.Lock()
	s.f = full
	s.mu.Unlock()
	msgs := []agent.Message{user("task"), call("c1"), result("c1", "r")}
	r.Checkpoint(msgs)
	msgs = append(msgs, said("done"))
	r.Checkpoint(msgs)
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "could not be saved") {
		t.Fatalf("warnings %q", *warns)
	}
	s.mu.Lock()
	s.f = good
	s.mu.Unlock()
	msgs = append(msgs, user("more"))
	r.Checkpoint(msgs)
	r.End(agent.StatusDone, 2, "")
	if len(*warns) != 2 || !strings.Contains((*warns)[1], "saved again") {
		t.Errorf("warnings %q", *warns)
	}
	st2, _ := reopen(t, st)
	got, _ := st2.Session(s.ID)
	if d := cmp.Diff(msgs, got.Messages()); d != "" || got.Recovery() != nil {
		t.Errorf("recovery %v (-want +got):\n%s", got.Recovery(), d)
	}
}

// A11: bad IDs never name a file outside the store; prefixes resolve when
// unique.
func TestStore_A11_IDs(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, _ := st.New()
	for _, id := range []string{"../x", "", "ABC", s.ID + "0", "/etc/passwd", "abcd/../../x"} {
		if _, err := st.Session(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Session(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if got, err := st.Session(s.ID[:5]); err != nil || got != s {
		t.Errorf("prefix: %v", err)
	}
	if _, err := st.Session(s.ID[:3]); !errors.Is(err, ErrNotFound) {
		t.Errorf("3-character prefix: %v", err)
	}
	for _, c := range []struct {
		in   string
		id   string
		n    int
		fail bool
	}{{"abc123-2", "abc123", 2, false}, {"abc123", "abc123", 0, false}, {"abc123-0", "", 0, true}, {"x-1", "", 0, true}, {"abc-1-2", "", 0, true}} {
		id, n, err := ParseRunID(c.in)
		if (err != nil) != c.fail || id != c.id || n != c.n {
			t.Errorf("ParseRunID(%q) = %q, %d, %v", c.in, id, n, err)
		}
	}
}

// A11: runs of one session queue in the order they came; a waiter that
// gives up leaves the line; runs of other sessions do not wait.
func TestSession_A11_Queue(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, _ := st.New()
	first, err := s.Begin(t.Context(), agent.ModePlan, "first")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	gone, giveUp := context.WithCancel(t.Context())
	for i := 1; i <= 4; i++ {
		ctx := t.Context()
		if i == 2 {
			ctx = gone
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Begin(ctx, agent.ModePlan, fmt.Sprint(i))
			if err != nil {
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			r.End(agent.StatusDone, 0, "")
		}()
		waitFor(t, func() bool { return s.queue.waiters() == i })
	}
	giveUp()
	waitFor(t, func() bool { return s.queue.waiters() == 3 })
	other, _ := st.New()
	done := make(chan struct{})
	go func() {
		r, err := other.Begin(t.Context(), agent.ModePlan, "other")
		if err == nil {
			r.End(agent.StatusDone, 0, "")
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a run of another session waited")
	}
	first.End(agent.StatusDone, 0, "")
	wg.Wait()
	if d := cmp.Diff([]int{1, 3, 4}, order); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

// A11: across processes, a run of a session waits for the other process's
// run to end, and then sees what it wrote.
func TestSession_A11_CrossProcessLock(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, _ := st.New()
	st2, _ := reopen(t, st)
	s2, err := st2.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	r := runTurns(t, s, agent.ModePlan, []agent.Message{user("a"), said("b")})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := s2.Begin(ctx, agent.ModePlan, "x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("began while the other process ran: %v", err)
	}
	r.End(agent.StatusDone, 1, "")
	r2, err := s2.Begin(t.Context(), agent.ModeExecute, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.End(agent.StatusDone, 0, "")
	if h := r2.History(); len(h) != 2 || r2.N != 2 {
		t.Errorf("run %d, history %v", r2.N, h)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not reached")
}

// A11: tickets taken in one order begin in that order, whatever order
// their goroutines reach Begin; a ticket given up (before or while
// waiting, or after its turn came) passes the turn on.
func TestSession_A11_TicketsKeepArrivalOrder(t *testing.T) {
	st, _ := newStore(t, "")
	s, _ := st.New()
	tickets := make([]*Ticket, 5)
	for i := range tickets {
		tickets[i] = s.Reserve()
	}
	tickets[0].Cancel() // held the turn: hands it on
	tickets[3].Cancel() // waiting: leaves the line
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for _, i := range []int{4, 2, 1} { // reach Begin in reverse
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := tickets[i].Begin(t.Context(), agent.ModePlan, "x")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			tickets[i].Cancel() // after Begin: nothing
			r.End(agent.StatusDone, 0, "")
		}()
		time.Sleep(10 * time.Millisecond)
	}
	wg.Wait()
	if d := cmp.Diff([]int{1, 2, 4}, order); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if _, err := tickets[1].Begin(t.Context(), agent.ModePlan, "again"); err == nil {
		t.Error("a ticket began two runs")
	}
	if r, err := s.Begin(t.Context(), agent.ModePlan, "after"); err != nil {
		t.Errorf("the queue is stuck: %v", err)
	} else {
		r.End(agent.StatusDone, 0, "")
	}
}

// A11: Inspect reads a damaged log as it is: it says what is damaged,
// shows the readable prefix, and changes nothing on disk.
func TestStore_A11_InspectChangesNothing(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, log := writeSession(t, st)
	bad := append(bytes.Clone(log[:len(log)/2]), []byte("garbage\n")...)
	if err := os.WriteFile(st.path(s.ID), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	st2, warns := reopen(t, st)
	got, err := st2.Inspect(s.ID[:6])
	if err != nil {
		t.Fatal(err)
	}
	if got.Recovery() == nil || len(got.Messages()) == 0 {
		t.Errorf("recovery %v, %d messages", got.Recovery(), len(got.Messages()))
	}
	if now, _ := os.ReadFile(st.path(s.ID)); !bytes.Equal(now, bad) {
		t.Error("Inspect changed the log")
	}
	if m, _ := filepath.Glob(st.path(s.ID) + ".corrupt-*"); len(m) != 0 || len(*warns) != 0 {
		t.Errorf("Inspect repaired: %v, warnings %q", m, *warns)
	}
	if _, err := got.Begin(t.Context(), agent.ModePlan, "x"); err == nil {
		t.Error("a snapshot began a run")
	}
}

// A11: a log that looks damaged while another process runs the session
// (its write may be in progress) is not repaired then; the next run's
// Begin, under the lock, repairs it and says so.
func TestStore_A11_RepairOnlyUnderLock(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, log := writeSession(t, st)
	running, err := s.Begin(t.Context(), agent.ModePlan, "busy")
	if err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(st.path(s.ID))
	torn := append(bytes.Clone(now), []byte(`{"k":"msg","m":{"role":"assis`)...)
	if err := os.WriteFile(st.path(s.ID), torn, 0o600); err != nil {
		t.Fatal(err)
	}
	st2, warns := reopen(t, st)
	s2, err := st2.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if on, _ := os.ReadFile(st.path(s.ID)); !bytes.Equal(on, torn) || len(*warns) != 0 || s2.Recovery() != nil {
		t.Fatalf("repaired while another process held the lock: warnings %q", *warns)
	}
	// The other process's write completes its line; its run ends.
	fixed := append(bytes.Clone(now), []byte("garbage\n")...)
	if err := os.WriteFile(st.path(s.ID), fixed, 0o600); err != nil {
		t.Fatal(err)
	}
	running.End(agent.StatusDone, 0, "")
	r, err := s2.Begin(t.Context(), agent.ModePlan, "next")
	if err != nil {
		t.Fatal(err)
	}
	r.Checkpoint(append(r.History(), user("next")))
	r.End(agent.StatusDone, 0, "")
	if len(*warns) != 1 || s2.Recovery() == nil {
		t.Errorf("after the lock: warnings %q", *warns)
	}
	st3, _ := reopen(t, st)
	again, _ := st3.Session(s.ID)
	if again.Recovery() != nil || len(again.Messages()) != 13 || len(again.Runs()) != 5 {
		t.Errorf("after the repair: recovery %v, %d messages, %d runs", again.Recovery(), len(again.Messages()), len(again.Runs()))
	}
	_ = log
}
