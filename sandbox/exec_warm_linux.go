package sandbox

import (
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// warmHelper is a helper started ahead of need, with its output pipes:
// its process start-up and package init are paid before the command
// arrives, off the command's critical path.
type warmHelper struct {
	h                 *helperProc
	specW, outR, errR *os.File
	flags             uintptr
}

// warmUsed counts commands that ran in a prestarted helper (tests).
var warmUsed atomic.Int64

// waitWarm waits until a started fill has ended (tests and benchmarks).
func waitWarm() {
	prestart.mu.Lock()
	filled := prestart.filled
	prestart.mu.Unlock()
	if filled != nil {
		<-filled
	}
}

// prestart guards the one warm helper a server keeps.
var prestart struct {
	mu      sync.Mutex // guards the fields below
	on      bool
	filling bool
	slot    *warmHelper
	flags   uintptr
	filled  chan struct{} // closed when the current fill ends
}

// EnablePrestart makes [Exec] keep one helper started ahead for commands
// without network (the default), so a command pays only the namespace's
// and the shell's start, not the helper binary's. Servers call it once;
// [StopPrestart] ends it. The warm helper is an ordinary helper: same
// namespaces and layers, and it dies with the server (Pdeathsig).
func EnablePrestart() {
	p := probe()
	if p.err != nil {
		return
	}
	prestart.mu.Lock()
	prestart.on, prestart.flags = true, p.flags
	prestart.mu.Unlock()
	refill()
}

// StopPrestart turns prestarting off and ends the warm helper, if any.
func StopPrestart() {
	prestart.mu.Lock()
	prestart.on = false
	w, filled := prestart.slot, prestart.filled
	prestart.slot = nil
	prestart.mu.Unlock()
	if filled != nil {
		<-filled
		prestart.mu.Lock()
		if prestart.slot != nil {
			w, prestart.slot = prestart.slot, nil
		}
		prestart.mu.Unlock()
	}
	if w != nil {
		w.discard()
	}
}

// takeWarm returns the warm helper when it was started for flags and is
// alive, and starts the next one.
func takeWarm(flags uintptr) *warmHelper {
	prestart.mu.Lock()
	w := prestart.slot
	if w == nil || w.flags != flags {
		prestart.mu.Unlock()
		return nil
	}
	prestart.slot = nil
	prestart.mu.Unlock()
	warmUsed.Add(1)
	refill()
	select {
	case <-w.h.exited:
		w.discard() // killed while waiting: start a cold one instead
		return nil
	default:
	}
	return w
}

// refill starts a warm helper in the background unless one is ready or
// being started.
func refill() {
	prestart.mu.Lock()
	defer prestart.mu.Unlock()
	if !prestart.on || prestart.slot != nil || prestart.filling {
		return
	}
	prestart.filling = true
	done := make(chan struct{})
	prestart.filled = done
	flags := prestart.flags
	go func() {
		defer close(done)
		w, err := launchWithPipes(flags)
		prestart.mu.Lock()
		defer prestart.mu.Unlock()
		prestart.filling = false
		if err != nil {
			return
		}
		if !prestart.on {
			go w.discard()
			return
		}
		prestart.slot = w
	}()
}

// launchWithPipes starts a helper with fresh output pipes.
func launchWithPipes(flags uintptr) (*warmHelper, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	unix.FcntlInt(outR.Fd(), unix.F_SETPIPE_SZ, pipeSize)
	h, specW, err := launchHelper(flags, outW, errW)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	return &warmHelper{h: h, specW: specW, outR: outR, errR: errR, flags: flags}, nil
}

// discard ends an unused helper: closing its spec pipe makes it exit.
func (w *warmHelper) discard() {
	w.specW.Close()
	select {
	case <-w.h.exited:
	default:
		w.h.cmd.Process.Kill()
		<-w.h.exited
	}
	w.h.reap()
	w.h.status.Close()
	w.outR.Close()
	w.errR.Close()
}
