package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Errors of checkpoints and reverts.
var (
	// ErrNotKept: a limit kept the old content of a file out of the
	// checkpoint; the change may go on but cannot be reverted.
	ErrNotKept = errors.New("old content not kept for revert")
	// ErrNothingToRevert: the run changed no file, or was reverted already.
	ErrNothingToRevert = errors.New("nothing to revert")
)

// Hash is the hash that change records and reverts compare contents by:
// hex SHA-256.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// absent is the After of a change that left no file.
const absent = "-"

// keptFile is what a run knows about a file it changes.
type keptFile struct {
	before string
	create bool
	kept   bool
}

// Keep stores the content of path (workspace-relative) before the run
// changes it: old, or nothing when the file does not exist (the run
// creates it). Only the first call for a path in a run counts. It returns
// an error wrapping [ErrNotKept] when a limit or a write failure keeps it
// out: the change may go on, but a revert will refuse the file.
func (r *Run) Keep(path string, old []byte, exists bool) error {
	return r.KeepAll([]Kept{{Path: path, Old: old, Exists: exists}})[0]
}

// Kept is a file's state before a change, for [Run.KeepAll]: its content
// Old, or Exists false (the change creates it); TooBig says its content
// was too large to pass, so it cannot be kept.
type Kept struct {
	Path   string
	Old    []byte
	Exists bool
	TooBig bool
}

// KeepAll is [Run.Keep] for many files, with one durable write of their
// records: what one command's merge changes (S9). It returns each file's
// error (nil when kept).
func (r *Run) KeepAll(files []Kept) []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := make([]error, len(files))
	var recs []*record
	for i, f := range files {
		rec, err := r.keepOne(f)
		errs[i] = err
		if rec != nil {
			recs = append(recs, rec)
		}
	}
	if len(recs) > 0 {
		r.s.mu.Lock()
		for _, rec := range recs {
			r.s.apply(rec)
		}
		_ = r.s.writeNow(recs...)
		r.s.mu.Unlock()
	}
	return errs
}

// keepOne keeps one file (r.mu held) and returns its record, or nil when
// the path was kept (or refused) before in this run.
func (r *Run) keepOne(f Kept) (*record, error) {
	if k, ok := r.kept[f.Path]; ok {
		if !k.kept {
			return nil, fmt.Errorf("%w: %s", ErrNotKept, f.Path)
		}
		return nil, nil
	}
	if r.kept == nil {
		r.kept = map[string]*keptFile{}
	}
	k := &keptFile{create: !f.Exists, kept: true}
	if f.Exists && !f.TooBig {
		k.before = Hash(f.Old)
	}
	r.kept[f.Path] = k
	lim := r.s.st.limits
	var err error
	switch {
	case !f.Exists:
	case f.TooBig || int64(len(f.Old)) > lim.FileBytes:
		err = fmt.Errorf("%w: %s is larger than %d bytes", ErrNotKept, f.Path, lim.FileBytes)
	case r.files >= lim.RunFiles:
		err = fmt.Errorf("%w: %s: the run changed more than %d files", ErrNotKept, f.Path, lim.RunFiles)
	case r.bytes+int64(len(f.Old)) > lim.RunBytes:
		err = fmt.Errorf("%w: %s: the run's checkpoint holds %d bytes already", ErrNotKept, f.Path, r.bytes)
	default:
		if werr := r.s.putBlob(r.N, k.before, f.Old); werr != nil {
			err = fmt.Errorf("%w: %s: %v", ErrNotKept, f.Path, werr)
		}
	}
	if err != nil {
		k.kept = false
	} else {
		r.files++
		r.bytes += int64(len(f.Old))
	}
	return &record{Kind: kindChange, Time: time.Now().UTC(), Run: r.N, Path: f.Path, Before: k.before, Create: k.create, Kept: k.kept}, err
}

// Changed records what the run left in path after a change was proposed:
// its content now, or exists false when there is no file (a creation that
// did not land, a deletion). A change that did not land is recorded with
// the content it found, so the file counts as unchanged.
func (r *Run) Changed(path string, now []byte, exists bool) {
	l := Landed{Path: path, Exists: exists}
	if exists {
		l.Hash = Hash(now)
	}
	r.ChangedAll([]Landed{l})
}

// Landed is a file's state after a change, for [Run.ChangedAll]: the
// [Hash] of its content, or Exists false.
type Landed struct {
	Path, Hash string
	Exists     bool
}

// ChangedAll is [Run.Changed] for many files, by their hashes.
func (r *Run) ChangedAll(files []Landed) {
	var recs []*record
	r.mu.Lock()
	for _, f := range files {
		k, ok := r.kept[f.Path]
		if !ok {
			continue // never kept: not a change of this run's checkpoint
		}
		after := absent
		if f.Exists {
			after = f.Hash
		}
		recs = append(recs, &record{Kind: kindChange, Time: time.Now().UTC(), Run: r.N, Path: f.Path, Before: k.before, Create: k.create, Kept: k.kept, After: after})
	}
	r.mu.Unlock()
	if len(recs) == 0 {
		return
	}
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range recs {
		s.apply(rec)
	}
	_ = s.write(true, recs...)
}

// blobDir is the checkpoint directory of run n.
func (s *Session) blobDir(n int) string {
	return filepath.Join(s.st.dir, s.ID+".files", strconv.Itoa(n))
}

func (s *Session) putBlob(n int, hash string, data []byte) error {
	if s.st.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.blobs == nil {
			s.blobs = map[string][]byte{}
		}
		s.blobs[strconv.Itoa(n)+"/"+hash] = slices.Clone(data)
		return nil
	}
	dir := s.blobDir(n)
	if err := mkdirPrivate(dir); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, hash), data)
}

// Old returns the content path had before run n changed it, from the
// checkpoint; it checks the content against the recorded hash.
func (s *Session) Old(n int, c ChangeInfo) ([]byte, error) {
	if !c.Kept || c.Create {
		return nil, fmt.Errorf("%w: %s", ErrNotKept, c.Path)
	}
	var data []byte
	if s.st.dir == "" {
		s.mu.Lock()
		b, ok := s.blobs[strconv.Itoa(n)+"/"+c.Before]
		s.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrNotKept, c.Path)
		}
		data = b
	} else {
		b, err := os.ReadFile(filepath.Join(s.blobDir(n), c.Before))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: the checkpoint expired", ErrNotKept, c.Path)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrNotKept, c.Path, err)
		}
		data = b
	}
	if Hash(data) != c.Before {
		return nil, fmt.Errorf("%w: %s: the checkpoint is damaged", ErrNotKept, c.Path)
	}
	return slices.Clone(data), nil
}

// RevertTarget returns run n of the session, or with n 0 its last run that
// changed files and was not reverted. It fails with [ErrNoRun] or
// [ErrNothingToRevert].
func (s *Session) RevertTarget(n int) (RunInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n == 0 {
		for i := len(s.runs) - 1; i >= 0; i-- {
			if r := s.runs[i]; r.RevertedBy == 0 {
				if info := r.info(); len(info.Changes) > 0 {
					return info, nil
				}
			}
		}
		return RunInfo{}, fmt.Errorf("%w: no run of session %s changed files that are not reverted yet", ErrNothingToRevert, s.ID)
	}
	r := s.run(n)
	if r == nil {
		return RunInfo{}, fmt.Errorf("%w: %s", ErrNoRun, RunID(s.ID, n))
	}
	info := r.info()
	switch {
	case r.RevertedBy != 0:
		return RunInfo{}, fmt.Errorf("%w: %s was reverted by %s already", ErrNothingToRevert, r.ID, RunID(s.ID, r.RevertedBy))
	case len(info.Changes) == 0:
		return RunInfo{}, fmt.Errorf("%w: %s changed no files", ErrNothingToRevert, r.ID)
	}
	return info, nil
}

// Reverted records, in the revert run r, what became of the files of the
// run it reverted: restored, refused as stale (changed since), or failed.
func (r *Run) Reverted(target int, restored, stale, failed []string) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := &record{Kind: kindRevert, Time: time.Now().UTC(), Run: r.N, Reverts: target, Restored: restored, Stale: stale, Failed: failed}
	s.apply(rec)
	_ = s.write(true, rec)
}

// prune deletes the checkpoints beyond the limits: the newest Runs run
// directories younger than MaxAge are kept while their total stays under
// TotalBytes.
func (st *Store) prune() {
	if st.dir == "" {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(st.dir, "*.files", "*"))
	type runDir struct {
		path  string
		mod   time.Time
		bytes int64
	}
	var all []runDir
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		rd := runDir{path: d, mod: fi.ModTime()}
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if info, err := e.Info(); err == nil {
				rd.bytes += info.Size()
				if info.ModTime().After(rd.mod) {
					rd.mod = info.ModTime()
				}
			}
		}
		all = append(all, rd)
	}
	// Temp files of an atomic write the process did not finish (a crash).
	tmps, _ := filepath.Glob(filepath.Join(st.dir, ".tmp-*"))
	more, _ := filepath.Glob(filepath.Join(st.dir, "*.files", "*", ".tmp-*"))
	for _, tmp := range append(tmps, more...) {
		if fi, err := os.Stat(tmp); err == nil && time.Since(fi.ModTime()) > time.Hour {
			_ = os.Remove(tmp)
		}
	}
	slices.SortFunc(all, func(a, b runDir) int { return b.mod.Compare(a.mod) })
	var total int64
	kept := 0
	for _, d := range all {
		total += d.bytes
		if kept < st.limits.Runs && time.Since(d.mod) <= st.limits.MaxAge && total <= st.limits.TotalBytes {
			kept++
			continue
		}
		if err := os.RemoveAll(d.path); err != nil {
			st.log.Warn("Checkpoint not pruned", slog.String("dir", d.path), slog.String("err", err.Error()))
		}
	}
}
