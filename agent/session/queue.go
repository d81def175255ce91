package session

import (
	"context"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"
)

// queue is a first-come, first-served lock: the runs of one session take
// turns in the order they took their tickets, and a ticket given up
// leaves the line (or hands the turn on).
type queue struct {
	mu      sync.Mutex // guards busy, waiting and every ticket's state
	busy    bool
	waiting []*ticket
}

type ticketState int

const (
	ticketWaiting ticketState = iota
	ticketHolding
	ticketDone
)

// ticket is one place in a queue.
type ticket struct {
	q     *queue
	turn  chan struct{} // closed when the ticket holds the queue
	state ticketState
}

// reserve takes a place at the end of the line, without waiting.
func (q *queue) reserve() *ticket {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := &ticket{q: q, turn: make(chan struct{})}
	if !q.busy {
		q.busy, t.state = true, ticketHolding
		close(t.turn)
	} else {
		q.waiting = append(q.waiting, t)
	}
	return t
}

// wait waits for the ticket's turn or ctx; when ctx ends first, the
// ticket is given up.
func (t *ticket) wait(ctx context.Context) error {
	select {
	case <-t.turn:
		return nil
	case <-ctx.Done():
		t.done()
		return ctx.Err()
	}
}

// done gives the ticket up: it leaves the line, or hands the turn to the
// next ticket. Calls after the first do nothing.
func (t *ticket) done() {
	q := t.q
	q.mu.Lock()
	defer q.mu.Unlock()
	switch t.state {
	case ticketWaiting:
		q.waiting = slices.DeleteFunc(q.waiting, func(w *ticket) bool { return w == t })
	case ticketHolding:
		if len(q.waiting) == 0 {
			q.busy = false
		} else {
			next := q.waiting[0]
			q.waiting = q.waiting[1:]
			next.state = ticketHolding
			close(next.turn)
		}
	}
	t.state = ticketDone
}

// waiters is the length of the line (tests).
func (q *queue) waiters() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// lockPoll is how often a run waiting for another process's lock on a
// session looks again.
const lockPoll = 50 * time.Millisecond

// Lock files (issue 25): <id>.lock exists only while a run holds it.
// The holder removes it before it lets go, and whoever takes a lock checks
// that the path still names the file it locked — otherwise it locked a
// file already removed, and takes the new one instead. So two processes
// never both hold a session, and no lock file is left behind.

// lock is a held session lock: its file and path.
type lock struct {
	f    *os.File
	path string
}

// unlock removes the lock file and lets go of it.
func (l *lock) unlock() {
	if l == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
}

// tryLock takes the lock at path if no one holds it, without waiting;
// nil when it is held (or cannot be taken).
func tryLock(path string) *lock {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			f.Close()
			return nil
		}
		if current(f, path) {
			return &lock{f, path}
		}
		f.Close() // removed by its last holder meanwhile: take the new one
	}
}

// current reports whether path still names the file f.
func current(f *os.File, path string) bool {
	held, err1 := f.Stat()
	now, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(held, now)
}

// lockFile takes the lock at path, waiting for ctx while another process
// holds it. The lock ends with unlock, or when the process dies (a file
// left then is taken over by the next run).
func lockFile(ctx context.Context, path string) (*lock, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := waitFlock(ctx, f); err != nil {
			f.Close()
			return nil, err
		}
		if current(f, path) {
			return &lock{f, path}, nil
		}
		f.Close()
	}
}

// waitFlock takes an exclusive flock on f, polling while another process
// holds it, until ctx is done.
func waitFlock(ctx context.Context, f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
