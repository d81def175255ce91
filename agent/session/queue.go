package session

import (
	"context"
	"os"
	"sync"
	"syscall"
	"time"
)

// queue is a first-come, first-served lock: the runs of one session take
// turns in the order they asked, and a waiter whose context ends leaves
// the line.
type queue struct {
	mu      sync.Mutex // guards busy and waiting
	busy    bool
	waiting []chan struct{}
}

// acquire waits for the queue's turn or ctx.
func (q *queue) acquire(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	q.waiting = append(q.waiting, turn)
	q.mu.Unlock()
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	for i, w := range q.waiting {
		if w == turn {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			q.mu.Unlock()
			return ctx.Err()
		}
	}
	q.mu.Unlock()
	// The turn was handed over just as ctx ended: pass it on.
	q.release()
	return ctx.Err()
}

// release hands the turn to the next waiter, or frees the queue.
func (q *queue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 {
		q.busy = false
		return
	}
	next := q.waiting[0]
	q.waiting = q.waiting[1:]
	close(next)
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
