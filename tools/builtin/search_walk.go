package builtin

import (
	"context"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// searchRun is one search call. One goroutine walks the tree depth-first
// in name order with a handle per directory (sandbox.Dir: children opened
// relative to their parent, never through a symlink) and hands the files
// out in numbered batches; GOMAXPROCS workers read and search them; the
// calling goroutine puts the results back in walk order, so the output is
// the same whatever the scheduling. After searchBudget the walk only
// counts what it finds, for the result to say what was not searched.
type searchRun struct {
	ctx           context.Context
	env           *tools.Env
	root          *sandbox.Root // for symlink targets
	m             *lineMatcher
	offset, limit int
	deadline      time.Time
	buffered      func(rel string) bool
	out           *searchOut

	// Walker state, written by the walk goroutine and read after it ends.
	start   string // the searched directory
	jobs    chan jobBatch
	batch   jobBatch // files found and not yet handed out
	stopped bool     // the budget ran out: files are counted, not handed out
	walked  walkCounts
}

// walkCounts is what the walk itself tells about files it did not hand out.
type walkCounts struct {
	secrets     int            // files that may hold credentials
	notSearched map[string]int // files the budget left out, by part
	countCut    bool           // the counting of those stopped too
}

// jobBatch is consecutive files of the walk, handed out together so that
// the workers and the walk meet once per batch, not once per file.
type jobBatch struct {
	n    int // the batch's place in the walk
	jobs []fileJob
}

// searchBatch is the most files in a batch.
const searchBatch = 32

// resultBatch is what a worker found in the files of one jobBatch.
type resultBatch struct {
	n       int
	results []fileResult
}

// fileJob is one file for a worker.
type fileJob struct {
	dir  *dirRef // the open parent; nil: read through the workspace only
	name string  // in dir
	rel  string  // workspace-relative, as reported
	via  string  // what the workspace reads: rel, or a symlink's target
	part string  // the top of rel below the searched directory, for "not searched"
}

// searchWalkHook, when set by a test, runs after each directory is listed
// and before its entries are handed out or entered.
var searchWalkHook func(dir string)

// dirRef is an open directory shared by the walker and the jobs of its
// files; the last one done closes it.
type dirRef struct {
	d    *sandbox.Dir
	refs atomic.Int32
}

func (r *dirRef) release() {
	if r.refs.Add(-1) == 0 {
		r.d.Close()
	}
}

// run searches the directory rel.
func (s *searchRun) run(rel string) error {
	d, err := sandbox.OpenDir(s.env.Root, rel)
	if err != nil {
		return nil // swapped for a symlink since it was resolved: nothing to search
	}
	s.start = rel
	s.jobs = make(chan jobBatch, searchInFlight)
	results := make(chan resultBatch, searchInFlight)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte
			for b := range s.jobs {
				rs := make([]fileResult, len(b.jobs))
				for i, j := range b.jobs {
					rs[i] = s.searchFile(j, &buf)
				}
				results <- resultBatch{b.n, rs}
			}
		})
	}
	var walkErr error
	go func() {
		walkErr = s.walkDir(newDirRef(d), rel, s.ancestorIgnores(rel))
		if walkErr == nil {
			s.flush()
		} else {
			s.drop()
		}
		close(s.jobs)
		wg.Wait()
		close(results)
	}()
	s.out.collect(results)
	s.out.merge(&s.walked) // the walk ended before results closed
	if walkErr == nil {
		walkErr = s.ctx.Err()
	}
	return walkErr
}

func newDirRef(d *sandbox.Dir) *dirRef {
	r := &dirRef{d: d}
	r.refs.Store(1)
	return r
}

// walkDir hands out the files of the directory d (workspace path rel) and
// walks its subdirectories, then releases d.
func (s *searchRun) walkDir(d *dirRef, rel string, ign ignoreStack) error {
	defer d.release()
	ents, err := d.d.Entries()
	if err != nil {
		return nil // unreadable: skip it
	}
	ign = ign.with(s.readIgnore(d.d, rel, ents))
	if searchWalkHook != nil {
		searchWalkHook(rel)
	}
	for _, e := range ents {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if s.overCount() {
			return nil
		}
		child := joinRel(rel, e.Name())
		switch t := e.Type(); {
		case t.IsDir():
			if searchSkipDirs[e.Name()] || ign.ignored(child, true) {
				continue
			}
			sub, err := d.d.OpenDir(e.Name())
			if err != nil {
				continue // swapped for a symlink, or gone: not followed
			}
			if err := s.walkDir(newDirRef(sub), child, ign); err != nil {
				return err
			}
		case t.IsRegular() && !ign.ignored(child, false):
			s.file(fileJob{dir: d, name: e.Name(), rel: child, via: child})
		case t&fs.ModeSymlink != 0 && !ign.ignored(child, false):
			s.symlink(child)
		}
	}
	return nil
}

// file hands out the regular file j, unless it may hold credentials or
// the budget is spent.
func (s *searchRun) file(j fileJob) {
	j.part = s.part(j.rel)
	switch {
	case sandbox.IsSecretPath(j.rel):
		s.walked.secrets++
		return
	case !s.stopped && time.Now().After(s.deadline):
		s.stopped = true
		s.drop() // not searched either
	}
	if s.stopped {
		s.notSearched(j.part)
		return
	}
	if j.dir != nil {
		j.dir.refs.Add(1)
	}
	if s.batch.jobs = append(s.batch.jobs, j); len(s.batch.jobs) == searchBatch {
		s.flush()
	}
}

// flush hands out the batch: at most searchInFlight batches are ahead of
// the result (a slot each, given back when the result takes it in).
func (s *searchRun) flush() {
	if len(s.batch.jobs) == 0 {
		return
	}
	select {
	case s.out.slots <- struct{}{}:
	case <-s.ctx.Done():
		s.drop()
		return
	}
	select {
	case s.jobs <- s.batch:
		s.batch = jobBatch{n: s.batch.n + 1}
	case <-s.ctx.Done():
		s.drop()
	}
}

// drop gives up the batch not handed out, counting its files as not
// searched.
func (s *searchRun) drop() {
	for _, j := range s.batch.jobs {
		if j.dir != nil {
			j.dir.release()
		}
		s.notSearched(j.part)
	}
	s.batch.jobs = s.batch.jobs[:0]
}

func (s *searchRun) notSearched(part string) {
	if s.walked.notSearched == nil {
		s.walked.notSearched = map[string]int{}
	}
	s.walked.notSearched[part]++
}

// symlink follows a symlink only to a regular file inside the workspace,
// read through the workspace; symlinked directories are not entered,
// which also rules out loops.
func (s *searchRun) symlink(rel string) {
	target, err := sandbox.ResolvePath(s.env.Root, rel)
	if err != nil {
		return // leads outside the workspace
	}
	if sandbox.IsSecretPath(target) {
		s.walked.secrets++
		return
	}
	if fi, err := s.root.Stat(target); err == nil && fi.Mode().IsRegular() && fi.Size() <= searchMaxFileBytes {
		s.file(fileJob{rel: rel, via: target})
	}
}

// overCount reports whether the walk should end: the budget is spent and
// so is the time to count what was not searched.
func (s *searchRun) overCount() bool {
	if !s.stopped || time.Now().Before(s.deadline.Add(searchCountBudget)) {
		return false
	}
	s.walked.countCut = true
	return true
}

// part is the first component of rel below the searched directory.
func (s *searchRun) part(rel string) string {
	if s.start != "." {
		rel = strings.TrimPrefix(rel, s.start+"/")
	}
	if i := strings.IndexByte(rel, '/'); i >= 0 {
		return joinRel(s.start, rel[:i]) + "/"
	}
	return joinRel(s.start, rel)
}

// readIgnore reads the .gitignore among ents, if there is one.
func (s *searchRun) readIgnore(d *sandbox.Dir, rel string, ents []fs.DirEntry) *ignoreFile {
	for _, e := range ents {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if b, err := d.ReadFile(".gitignore", searchMaxFileBytes, nil); err == nil {
				return parseIgnore(rel, b)
			}
		}
	}
	return nil
}

// ancestorIgnores loads .git/info/exclude and the .gitignore files of the
// directories above rel, up to the workspace root.
func (s *searchRun) ancestorIgnores(rel string) ignoreStack {
	var st ignoreStack
	if d, err := sandbox.OpenDir(s.env.Root, ".git/info"); err == nil {
		if b, err := d.ReadFile("exclude", searchMaxFileBytes, nil); err == nil {
			st = st.with(parseIgnore(".", b))
		}
		d.Close()
	}
	if rel == "." {
		return st
	}
	dir := "."
	for _, c := range strings.Split(rel, "/") {
		if d, err := sandbox.OpenDir(s.env.Root, dir); err == nil {
			if b, err := d.ReadFile(".gitignore", searchMaxFileBytes, nil); err == nil {
				st = st.with(parseIgnore(dir, b))
			}
			d.Close()
		}
		dir = joinRel(dir, c)
	}
	return st
}
