package session

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/agent"
)

// Run is one run of a session, between [Session.Begin] and [Run.End]. It
// implements [agent.Journal]: the loop hands it the conversation at every
// turn boundary and it appends what is new to the log.
type Run struct {
	// N is the run's number in its session, from 1; ID is "<session>-<N>".
	N  int
	ID string

	s       *Session
	history []agent.Message
	turn    *ticket
	lock    *lock // the cross-process lock; nil in memory
	endOnce sync.Once

	mu    sync.Mutex // guards kept
	kept  map[string]*keptFile
	files int
	bytes int64
}

// Ticket is a place in the line of a session's runs, taken when a command
// arrives so that its run begins after the runs of the commands that came
// before it, whatever the order their goroutines get to [Ticket.Begin].
type Ticket struct {
	s     *Session
	t     *ticket
	begun atomic.Bool
}

// Reserve takes a place at the end of the session's line, without
// waiting. The caller must Begin or Cancel it.
func (s *Session) Reserve() *Ticket { return &Ticket{s: s, t: s.queue.reserve()} }

// Cancel gives the place up; after Begin it does nothing (the run's End
// ends the turn).
func (t *Ticket) Cancel() {
	if t != nil && !t.begun.Load() {
		t.t.done()
	}
}

// revertMode is how the log names a revert run: not a mode of the agent,
// a run that restores the files of run Reverts.
const revertMode = "revert"

// Begin starts a run of mode with its instruction in the session: it
// waits until the session's earlier runs have ended (in this process, in
// the order of their tickets; in others, by a lock on the file), records
// the run and returns it. The caller must call [Run.End].
func (s *Session) Begin(ctx context.Context, mode agent.Mode, instruction string) (*Run, error) {
	return s.Reserve().Begin(ctx, mode, instruction)
}

// BeginRevert starts a run that restores the files run n changed, as
// [Session.Begin] starts an agent run.
func (s *Session) BeginRevert(ctx context.Context, n int) (*Run, error) {
	return s.Reserve().BeginRevert(ctx, n)
}

// Begin is [Session.Begin] at this ticket's place in the line.
func (t *Ticket) Begin(ctx context.Context, mode agent.Mode, instruction string) (*Run, error) {
	return t.begin(ctx, mode.String(), instruction, 0)
}

// BeginRevert is [Session.BeginRevert] at this ticket's place in the line.
func (t *Ticket) BeginRevert(ctx context.Context, n int) (*Run, error) {
	return t.begin(ctx, revertMode, revertMode, n)
}

func (t *Ticket) begin(ctx context.Context, mode, instruction string, reverts int) (*Run, error) {
	s := t.s
	if s.readOnly {
		return nil, fmt.Errorf("session %s: a snapshot cannot begin runs", s.ID)
	}
	if t.begun.Swap(true) {
		return nil, fmt.Errorf("session %s: a ticket begins one run", s.ID)
	}
	if err := t.t.wait(ctx); err != nil {
		return nil, err
	}
	r := &Run{s: s, turn: t.t}
	if s.st.dir != "" {
		lock, err := lockFile(ctx, filepath.Join(s.st.dir, s.ID+".lock"))
		if err != nil {
			t.t.done()
			return nil, fmt.Errorf("session %s: %w", s.ID, err)
		}
		r.lock = lock
		s.refresh()
		s.st.prune()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := 0
	if len(s.runs) > 0 {
		last = s.runs[len(s.runs)-1].N
	}
	r.N = s.nextRun(last)
	r.ID = RunID(s.ID, r.N)
	r.history = slices.Clone(s.msgs)
	rec := &record{Kind: kindRun, Time: time.Now().UTC(), Run: r.N, Mode: mode, Instruction: firstLine(instruction), Reverts: reverts}
	s.apply(rec)
	if s.write(true, rec) != nil {
		s.burn(r.N)
	}
	return r, nil
}

// refresh re-reads the log, under the session's lock, when another
// process appended to it since it was loaded (two `agentls exec
// --continue` one after the other) or it looked damaged then; a damaged
// log is repaired as at load.
func (s *Session) refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return
	}
	fi, err := s.f.Stat()
	if err != nil || (fi.Size() == s.size && !s.unchecked) {
		return
	}
	s.unchecked = false
	path := s.st.path(s.ID)
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	good, rec := s.replay(data)
	s.size = int64(good)
	if rec == nil {
		return
	}
	rec.From = s.ID
	s.recovery = rec
	s.st.warn("agentls: " + rec.String())
	s.st.log.Warn("Session recovered", slog.String("session", s.ID), slog.String("recovery", rec.String()))
	if err := s.repair(path, data, good, rec); err != nil {
		// Never append after a damaged record: the log stays as it is and
		// this session goes on in memory.
		s.f.Close()
		s.f = nil
		return
	}
	// The repair replaced the file (or removed it): append to the new one.
	s.f.Close()
	s.f = nil
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	s.f = f
	if rec.Fresh {
		s.size = 0
		_ = s.write(true, &record{Kind: kindSession, Time: time.Now().UTC(), Version: formatVersion, ID: s.ID, Root: s.st.root})
	}
}

// History is the conversation before this run, for
// agent.RunOptions.History.
func (r *Run) History() []agent.Message { return slices.Clone(r.history) }

// Checkpoint implements [agent.Journal]: it appends the messages new since
// the last checkpoint, one record each, or, when the conversation was
// rewritten (compaction, repairs), one reset record with all of it; then
// fsyncs. A failure is warned about, and the records are written with the
// next write that succeeds.
func (r *Run) Checkpoint(msgs []agent.Message) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	var recs []*record
	if len(msgs) >= len(s.msgs) && samePrefix(s.msgs, msgs) {
		for i := len(s.msgs); i < len(msgs); i++ {
			recs = append(recs, &record{Kind: kindMsg, Msg: &msgs[i]})
		}
	} else {
		recs = append(recs, &record{Kind: kindReset, Time: time.Now().UTC(), Msgs: msgs})
	}
	if len(recs) == 0 {
		return
	}
	// A failed write keeps the records pending for the next one.
	_ = s.write(true, recs...)
	for _, rec := range recs {
		s.apply(rec)
	}
}

// Step implements [agent.StepJournal]: it appends why the run's tool
// call was allowed, asked or denied (E21) to the log; the next turn
// boundary fsyncs it. A failure is warned about as for messages, and the
// record is written with the next write that succeeds.
func (r *Run) Step(e *agent.Explanation) {
	if e == nil {
		return
	}
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := &record{Kind: kindStep, Time: time.Now().UTC(), Run: r.N, Step: new(*e)}
	_ = s.write(false, rec)
	s.apply(rec)
}

// samePrefix reports whether b starts with a. Unchanged messages share
// their strings with the loop's, so comparing them is cheap.
func samePrefix(a, b []agent.Message) bool {
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Role != y.Role || x.Content != y.Content || x.ToolCallID != y.ToolCallID || len(x.ToolCalls) != len(y.ToolCalls) {
			return false
		}
		for j := range x.ToolCalls {
			if x.ToolCalls[j] != y.ToolCalls[j] {
				return false
			}
		}
	}
	return true
}

// End records how the run ended and lets the session's next run begin.
// Calls after the first do nothing.
func (r *Run) End(status agent.Status, turns int, summary string) {
	r.endOnce.Do(func() {
		s := r.s
		s.mu.Lock()
		rec := &record{Kind: kindEnd, Time: time.Now().UTC(), Run: r.N, Status: string(status), Turns: turns, Summary: firstLine(summary)}
		s.apply(rec)
		_ = s.write(true, rec)
		s.indexLocked()
		s.mu.Unlock()
		r.lock.unlock()
		r.turn.done()
	})
}

// Session is the run's session.
func (r *Run) Session() *Session { return r.s }
