package session

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
)

// Session is one conversation of a workspace and the runs that made it.
// It is safe for concurrent use; its runs take turns ([Session.Begin]).
type Session struct {
	// ID names the session: 12 hex digits.
	ID string

	st    *Store
	queue queue
	refs  int // references handed out and not released; guarded by st.mu

	mu       sync.Mutex // guards the fields below
	f        *os.File   // the log, opened for appending; nil in memory
	size     int64      // bytes of complete records in the log
	started  time.Time
	updated  time.Time
	msgs     []agent.Message // the conversation as written
	turns    int             // assistant messages ever written
	runs     []*runInfo
	recovery *Recovery
	warned   bool // a write failure was reported
	readOnly bool // a snapshot from [Store.Inspect]
	// unchecked: the log looked damaged while another process held its
	// lock; Begin reads it again under the lock.
	unchecked bool
	blobs     map[string][]byte // checkpoints of a store in memory, by blob path
	// syncing is closed when the background fsync ends; nil when none
	// runs. syncWanted: records were written since it started.
	syncing    chan struct{}
	syncWanted bool
	hurry      chan struct{} // closed by Close: the fsync waits no more
	// pending are records a failed write (disk full) could not append:
	// they go first in the next write, so nothing of a run is lost when
	// space returns (issue 26). burned are the markers of this process's
	// runs whose run record is pending (see [Session.burn]).
	pending []*record
	burned  []string
	// indexed: this process wrote the index for the log at indexedSize
	// (the log's records decide its Info, so an unchanged size needs no
	// second write: the run's end writes it, and Close need not again).
	indexed     bool
	indexedSize int64
}

// runInfo is what the log says about one run.
type runInfo struct {
	RunInfo
	changes map[string]*ChangeInfo
	steps   []agent.Explanation // why each tool call was allowed, asked or denied (E21)
}

// Info describes a session for listings.
type Info struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Mode is the modes of its runs in order, repeats merged
	// ("plan,execute").
	Mode     string `json:"mode"`
	Runs     int    `json:"runs"`
	Turns    int    `json:"turns"`
	Messages int    `json:"messages"`
	// Task is the first line of the first run's instruction.
	Task string `json:"task"`
	// Damaged says why the log cannot be read to the end, if it cannot.
	Damaged string `json:"damaged,omitempty"`
}

// RunInfo describes one run of a session.
type RunInfo struct {
	N           int       `json:"n"`
	ID          string    `json:"id"`
	Mode        string    `json:"mode"`
	Instruction string    `json:"instruction"`
	Started     time.Time `json:"started"`
	// Status is how it ended; "" when it has not (running, or the process
	// died).
	Status  string `json:"status,omitempty"`
	Turns   int    `json:"turns,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Reverts is the run this one reverted; RevertedBy the run that
	// reverted this one.
	Reverts    int          `json:"reverts,omitempty"`
	RevertedBy int          `json:"revertedBy,omitempty"`
	Changes    []ChangeInfo `json:"changes,omitempty"`
}

// ChangeInfo is one file a run changed, folded over its changes.
type ChangeInfo struct {
	Path string `json:"path"`
	// Create: the file did not exist before the run.
	Create bool `json:"create,omitempty"`
	// Kept: its content before the run is in the checkpoint.
	Kept   bool   `json:"kept"`
	Before string `json:"before,omitempty"`
	// After is the hash of what the run left, "-" for no file; "" when
	// the process died before the change was confirmed.
	After string `json:"after,omitempty"`
}

// Gone reports whether the run left no file at the path.
func (c ChangeInfo) Gone() bool { return c.After == absent }

// unchanged reports whether the run's changes of the file did not land:
// it left what it found.
func (c *ChangeInfo) unchanged() bool {
	if c.Create {
		return c.After == absent
	}
	return c.After == c.Before
}

// Recovery says what a damaged log gave back.
type Recovery struct {
	// Line is the first line that could not be read (1-based), Reason why.
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// Kept counts the records and messages recovered; Dropped the records
	// (lines) from Line to the end.
	KeptRecords    int `json:"keptRecords"`
	KeptMessages   int `json:"keptMessages"`
	DroppedRecords int `json:"droppedRecords"`
	DroppedBytes   int `json:"droppedBytes"`
	// MovedTo is where the damaged file was kept; "" when only a cut-off
	// last line was dropped.
	MovedTo string `json:"movedTo,omitempty"`
	// Fresh: nothing was readable, a new session started (From is the
	// damaged one).
	Fresh bool   `json:"fresh,omitempty"`
	From  string `json:"from,omitempty"`
}

func (r *Recovery) String() string {
	var b strings.Builder
	if r.Fresh {
		fmt.Fprintf(&b, "session %s could not be read (line %d: %s); a new session starts", r.From, r.Line, r.Reason)
	} else {
		fmt.Fprintf(&b, "session %s: log damaged at line %d (%s): recovered %d records (%d messages), dropped %d records (%d bytes)",
			r.From, r.Line, r.Reason, r.KeptRecords, r.KeptMessages, r.DroppedRecords, r.DroppedBytes)
	}
	if r.MovedTo != "" {
		fmt.Fprintf(&b, "; the damaged file is kept as %s", r.MovedTo)
	}
	return b.String()
}

// create writes a new session's header.
func create(st *Store, id string) (*Session, error) {
	now := time.Now().UTC()
	s := &Session{ID: id, st: st, started: now, updated: now}
	if st.dir == "" {
		return s, nil
	}
	f, err := os.OpenFile(st.path(id), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	s.f = f
	if err := s.write(true, &record{Kind: kindSession, Time: now, Version: formatVersion, ID: id, Root: st.root}); err != nil {
		// The session works in memory; the warning has been given.
		st.log.Warn("Session header not written", slog.String("session", id), slog.String("err", err.Error()))
	}
	return s, nil
}

// load reads a session's log, recovering a damaged one.
func load(st *Store, id string) (*Session, error) {
	path := st.path(id)
	// A log is repaired only under the session's lock, never while a run
	// of another process appends to it (what looks torn may be its write
	// in progress); that run's end, and our run's begin, come first.
	lock := tryLock(filepath.Join(st.dir, id+".lock"))
	defer lock.unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	s := &Session{ID: id, st: st}
	good, rec := s.replay(data)
	if fi, err := os.Stat(path); err == nil {
		s.updated = fi.ModTime().UTC()
	}
	switch {
	case rec != nil && lock == nil:
		s.unchecked = true // looked at again by Begin, under the lock
	case rec != nil:
		rec.From = id
		if err := s.repair(path, data, good, rec); err != nil {
			return nil, err
		}
		s.recovery = rec
		st.warn("agentls: " + rec.String())
		st.log.Warn("Session recovered", slog.String("session", id), slog.String("recovery", rec.String()))
		if rec.Fresh {
			return s, nil
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	s.f, s.size = f, int64(good)
	return s, nil
}

// replay applies the records of data to s. It returns how many bytes of
// data are complete, readable records, and a recovery when that is not
// all of it.
func (s *Session) replay(data []byte) (int, *Recovery) {
	s.msgs, s.runs, s.turns = nil, nil, 0
	off, line, records := 0, 0, 0
	for off < len(data) {
		line++
		end := bytes.IndexByte(data[off:], '\n')
		var reason string
		var rec *record
		if end < 0 {
			reason = "the last record is cut off"
		} else {
			var err error
			if rec, err = decode(data[off : off+end]); err != nil {
				reason = err.Error()
			} else if records == 0 && (rec.Kind != kindSession || rec.ID != s.ID) {
				reason = "the first record is not this session's header"
			} else if records > 0 && rec.Kind == kindSession {
				reason = "a second header"
			}
		}
		if reason != "" {
			r := &Recovery{Line: line, Reason: reason, KeptRecords: records, KeptMessages: len(s.msgs),
				DroppedBytes: len(data) - off, DroppedRecords: bytes.Count(data[off:], []byte{'\n'})}
			if end < 0 || data[len(data)-1] != '\n' {
				r.DroppedRecords++
			}
			r.Fresh = records == 0
			return off, r
		}
		s.apply(rec)
		records++
		off += end + 1
	}
	return off, nil
}

// apply folds one record into the session's state.
func (s *Session) apply(rec *record) {
	if !rec.Time.IsZero() {
		s.updated = rec.Time
	}
	switch rec.Kind {
	case kindSession:
		s.started = rec.Time
	case kindRun:
		s.runs = append(s.runs, &runInfo{RunInfo: RunInfo{N: rec.Run, ID: RunID(s.ID, rec.Run), Mode: rec.Mode,
			Instruction: rec.Instruction, Started: rec.Time, Reverts: rec.Reverts}})
	case kindMsg:
		if rec.Msg != nil {
			s.msgs = append(s.msgs, *rec.Msg)
			if rec.Msg.Role == agent.RoleAssistant {
				s.turns++
			}
		}
	case kindReset:
		s.msgs = slices.Clone(rec.Msgs)
	case kindEnd:
		if r := s.run(rec.Run); r != nil {
			r.Status, r.Turns, r.Summary = rec.Status, rec.Turns, rec.Summary
		}
	case kindChange:
		if r := s.run(rec.Run); r != nil {
			r.fold(rec)
		}
	case kindStep:
		if r := s.run(rec.Run); r != nil && rec.Step != nil {
			r.steps = append(r.steps, *rec.Step)
		}
	case kindRevert:
		// A revert that restored nothing leaves the run revertable.
		if r := s.run(rec.Reverts); r != nil && len(rec.Restored) > 0 {
			r.RevertedBy = rec.Run
		}
	}
}

// run returns run n, or nil.
func (s *Session) run(n int) *runInfo {
	for _, r := range s.runs {
		if r.N == n {
			return r
		}
	}
	return nil
}

// fold records a change of the run: the first one of a path says what was
// before, the last one what the run left.
func (r *runInfo) fold(rec *record) {
	if r.changes == nil {
		r.changes = map[string]*ChangeInfo{}
	}
	c, ok := r.changes[rec.Path]
	if !ok {
		c = &ChangeInfo{Path: rec.Path, Create: rec.Create, Kept: rec.Kept, Before: rec.Before}
		r.changes[rec.Path] = c
	}
	c.After = rec.After
}

// info returns the run's description with its changes in path order.
func (r *runInfo) info() RunInfo {
	out := r.RunInfo
	out.Changes = nil
	for _, c := range r.changes {
		if !c.unchanged() {
			out.Changes = append(out.Changes, *c)
		}
	}
	slices.SortFunc(out.Changes, func(a, b ChangeInfo) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// repair puts the readable prefix of a damaged log in its place. A cut-off
// last line is cut away; anything else keeps the damaged file aside first.
func (s *Session) repair(path string, data []byte, good int, rec *Recovery) error {
	if rec.Fresh || rec.DroppedRecords > 1 || !strings.Contains(rec.Reason, "cut off") {
		rec.MovedTo = fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405"))
		if err := os.WriteFile(rec.MovedTo, data, 0o600); err != nil {
			return fmt.Errorf("session %s: keeping the damaged log: %w", s.ID, err)
		}
	}
	if rec.Fresh {
		return os.Remove(path)
	}
	return writeAtomic(path, data[:good])
}

// write appends records to the log in one write and, when sync is set
// (turn boundaries), has them fsynced in the background (see syncSoon):
// once write returns the kernel has them, so agentls itself can crash
// without losing a turn. A failure is warned about once per session and
// returned; the log is cut back to its last complete record.
func (s *Session) write(sync bool, recs ...*record) error {
	return s.append(sync, false, recs...)
}

// writeNow is write with the fsync done before it returns, for records
// that must be on disk before what they describe happens (the
// checkpoint of a file about to change).
func (s *Session) writeNow(recs ...*record) error {
	return s.append(true, true, recs...)
}

func (s *Session) append(sync, now bool, recs ...*record) error {
	s.updated = time.Now().UTC()
	if s.f == nil {
		return nil
	}
	var buf []byte
	for _, r := range slices.Concat(s.pending, recs) {
		line, err := encode(r)
		if err != nil {
			return s.failed(err)
		}
		buf = append(buf, line...)
	}
	if len(buf) == 0 {
		return nil
	}
	n, err := s.st.writeLog(s.f, buf)
	switch {
	case err == nil && now:
		err = s.st.fsync(s.f)
	case err == nil && sync:
		s.syncSoon()
	}
	if err != nil {
		if n > 0 {
			// Never leave half a record for the next append to follow.
			_ = s.f.Truncate(s.size)
		}
		s.pending = append(s.pending, recs...)
		return s.failed(err)
	}
	s.size += int64(n)
	s.pending = nil
	s.unburn()
	if s.warned {
		s.warned = false
		s.st.warn(fmt.Sprintf("agentls: session %s is being saved again", s.ID))
	}
	return nil
}

func (s *Session) failed(err error) error {
	s.st.log.Warn("Session not saved", slog.String("session", s.ID), slog.String("err", err.Error()))
	if !s.warned {
		s.warned = true
		s.st.warn(fmt.Sprintf("agentls: session %s could not be saved (%v); the conversation goes on and saving is retried at the next turn", s.ID, err))
	}
	return err
}

// Info describes the session.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.infoLocked()
}

func (s *Session) infoLocked() Info {
	info := Info{ID: s.ID, Started: s.started, Updated: s.updated, Runs: len(s.runs), Turns: s.turns, Messages: len(s.msgs)}
	var modes []string
	for _, r := range s.runs {
		if len(modes) == 0 || modes[len(modes)-1] != r.Mode {
			modes = append(modes, r.Mode)
		}
	}
	info.Mode = strings.Join(modes, ",")
	if len(s.runs) > 0 {
		info.Task = firstLine(s.runs[0].Instruction)
	}
	return info
}

// Runs describes the session's runs, in order.
func (s *Session) Runs() []RunInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RunInfo, len(s.runs))
	for i, r := range s.runs {
		out[i] = r.info()
	}
	return out
}

// Steps returns why each tool call of run n was allowed, asked or
// denied (E21), in the order of the calls; nil for a run with none (or
// recorded before agentls kept them), and for a run the session does not
// have.
func (s *Session) Steps(n int) []agent.Explanation {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.run(n); r != nil {
		return slices.Clone(r.steps)
	}
	return nil
}

// Messages returns the conversation as the log has it.
func (s *Session) Messages() []agent.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.msgs)
}

// Recovery says what was recovered when the session's log was damaged;
// nil when it was not.
func (s *Session) Recovery() *Recovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recovery
}

// Close waits for the background fsync and closes the log file. The
// session must not be used afterwards.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.hurry != nil {
		close(s.hurry)
		s.hurry = nil
	}
	s.mu.Unlock()
	s.waitSynced()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	if len(s.pending) > 0 {
		_ = s.writeNow() // the last chance to record them; else their runs stay burned
	}
	s.indexLocked()
	if s.syncing != nil || s.syncWanted {
		s.st.fsync(s.f) // written since the background fsync ended
	}
	err := s.f.Close()
	s.f = nil
	return err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// writeAtomic writes data to a temp file next to path, fsyncs it and
// renames it into place (0600).
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
