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

// tryLock takes the lock of lockFile if no one holds it, without waiting;
// nil when it is held (or cannot be taken).
func tryLock(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil
	}
	return f
}

// lockPoll is how often a run waiting for another process's lock on a
// session looks again.
const lockPoll = 50 * time.Millisecond

// lockFile takes an exclusive advisory lock (flock) on path, waiting for
// ctx while another process holds it. The lock ends when the returned file
// is closed, or when the process dies.
func lockFile(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
