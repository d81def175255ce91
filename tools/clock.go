package tools

import (
	"context"
	"sync"
	"time"
)

// AwaitUser marks the tool call running under ctx as waiting for the user
// until the returned function is called (it may be called more than once).
// The time in between does not count against the call's execution limit
// ([GatewayOptions.Timeout]): a question is bounded by the policy's approval
// timeout alone (T15, E7), whether the gateway asks it or the editor side
// does (an edit question, a pending workspace/applyEdit). Outside a
// gateway call it does nothing. A call nested in another (a sub-agent's,
// inside the agent tool) stops the clocks of both.
func AwaitUser(ctx context.Context) (resume func()) {
	var resumes []func()
	for c, ok := ctx.Value(execKey{}).(*execCtx); ok; c, ok = c.parent.Value(execKey{}).(*execCtx) {
		resumes = append(resumes, c.pause())
	}
	return func() {
		for _, r := range resumes {
			r()
		}
	}
}

type execKey struct{}

// execCtx is the context of one call's execution: done when its parent is,
// or when the call has run for its limit, not counting the time it spent
// waiting for the user. Its Err is then context.DeadlineExceeded, as for a
// plain timeout. It reports no Deadline: the deadline moves while the
// call waits.
type execCtx struct {
	parent context.Context
	done   chan struct{}
	stop   func() bool // stops the propagation of the parent's end

	mu     sync.Mutex // guards the fields below
	err    error
	left   time.Duration // execution time left when the clock last stopped
	since  time.Time     // when the clock last started
	waits  int           // questions pending: the clock stands while > 0
	waited time.Duration // time spent waiting, in total
	timer  *time.Timer
	gen    int // which arming of the timer is current
}

// withExecLimit returns a context for a call that may run for limit.
func withExecLimit(parent context.Context, limit time.Duration) (*execCtx, context.CancelFunc) {
	c := &execCtx{parent: parent, done: make(chan struct{}), left: limit}
	c.mu.Lock()
	c.start()
	c.mu.Unlock()
	stop := context.AfterFunc(parent, func() { c.end(parent.Err()) })
	c.mu.Lock()
	if c.err != nil {
		stop()
	} else {
		c.stop = stop
	}
	c.mu.Unlock()
	return c, func() { c.end(context.Canceled) }
}

func (c *execCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *execCtx) Done() <-chan struct{}       { return c.done }

func (c *execCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *execCtx) Value(key any) any {
	if key == (execKey{}) {
		return c
	}
	return c.parent.Value(key)
}

// start runs the clock; the caller holds mu.
func (c *execCtx) start() {
	c.since = time.Now()
	c.gen++
	gen := c.gen
	c.timer = time.AfterFunc(max(c.left, 0), func() { c.expire(gen) })
}

func (c *execCtx) expire(gen int) {
	c.mu.Lock()
	current := gen == c.gen && c.waits == 0
	c.mu.Unlock()
	if current {
		c.end(context.DeadlineExceeded)
	}
}

func (c *execCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.timer.Stop()
	if c.waits > 0 {
		c.waited += time.Since(c.since)
	}
	close(c.done)
	if c.stop != nil {
		c.stop()
	}
}

func (c *execCtx) pause() func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waits == 0 && c.err == nil {
		c.timer.Stop()
		c.gen++ // a timer firing right now is stale
		now := time.Now()
		c.left -= now.Sub(c.since)
		c.since = now
	}
	c.waits++
	var once sync.Once
	return func() { once.Do(c.resume) }
}

func (c *execCtx) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits--
	if c.waits == 0 && c.err == nil {
		c.waited += time.Since(c.since)
		c.start()
	}
}

// waitedFor is the time the call has spent waiting for the user.
func (c *execCtx) waitedFor() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waits > 0 && c.err == nil {
		return c.waited + time.Since(c.since)
	}
	return c.waited
}
