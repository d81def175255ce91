package session

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
)

// A16 (issue 25): a session's lock file exists only while a run holds
// it; runs that ended leave none behind.
func TestStore_A16_Issue25_NoLockFileLeft(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r, err := s.Begin(t.Context(), agent.ModePlan, "look")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(st.dir, s.ID+".lock")); err != nil {
			t.Errorf("no lock file while the run holds the session: %v", err)
		}
		r.End(agent.StatusDone, 1, "ok")
	}
	s.Release()
	if locks, _ := filepath.Glob(filepath.Join(st.dir, "*.lock")); len(locks) > 0 {
		t.Errorf("lock files left after the runs ended: %v", locks)
	}
}

// A16: removing the lock file on unlock never lets two holders in: one
// that locked a file its holder removed meanwhile takes the new one.
// Each lockFile call opens its own file description, as another process
// would, so flock excludes them from each other.
func TestLock_A16_Issue25_RemovedFileNeverTwoHolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lock")
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 40 {
				l, err := lockFile(context.Background(), path)
				if err != nil {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(time.Millisecond) // a run holds the session a while
				inside.Add(-1)
				l.unlock()
			}
		}()
	}
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Errorf("%d holders at once", m)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the lock file is left: %v", err)
	}
}
