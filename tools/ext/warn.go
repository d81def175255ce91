package ext

import (
	"context"
	"sync"
)

// maxEarly bounds the warnings kept until someone watches.
const maxEarly = 32

// warnings hands what goes wrong to the watcher, keeping what comes
// before there is one (a server whose start fails in the background
// before the front-end watches).
type warnings struct {
	mu    sync.Mutex
	watch func(ctx context.Context, msg string, attention bool)
	early []early
}

type early struct {
	ctx       context.Context
	msg       string
	attention bool
}

// OnWarning has w told what goes wrong while the extensions run, from now
// on and, first, what went wrong before (at most 32 warnings): a hook that
// failed (attention false: the call went on, or a policy hook denied
// it), an MCP server that did not start, crashed or had its tools
// removed (attention true: a tool is missing until the user acts). ctx
// is the context it happened in: a tool call's, or the servers' start.
// The text may quote a config or a server's output: w makes it visible.
func (x *Extensions) OnWarning(w func(ctx context.Context, msg string, attention bool)) {
	if x == nil {
		return
	}
	x.told.mu.Lock()
	x.told.watch = w
	kept := x.told.early
	x.told.early = nil
	x.told.mu.Unlock()
	for _, e := range kept {
		w(e.ctx, e.msg, e.attention)
	}
}

func (t *warnings) observer(ctx context.Context, msg string)  { t.tell(ctx, msg, false) }
func (t *warnings) attention(ctx context.Context, msg string) { t.tell(ctx, msg, true) }

func (t *warnings) tell(ctx context.Context, msg string, attention bool) {
	t.mu.Lock()
	w := t.watch
	if w == nil && len(t.early) < maxEarly {
		t.early = append(t.early, early{ctx: ctx, msg: msg, attention: attention})
	}
	t.mu.Unlock()
	if w != nil {
		w(ctx, msg, attention)
	}
}
