package exec

import (
	"log/slog"
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

// warmPool is the one warm helper a runner with [Options.Prestart] keeps.
type warmPool struct {
	mu      sync.Mutex // guards the fields up to filled
	on      bool
	closed  bool // Close was called: the background probe turns nothing on
	filling bool
	slot    *warmHelper
	flags   uintptr
	filled  chan struct{} // closed when the current fill ends

	probing sync.WaitGroup // the background probe of startPrestart
	used    atomic.Int64   // commands that ran in a prestarted helper (tests)
}

// startPrestart probes the sandbox and starts the first warm helper, in
// the background, so that neither [New] nor whatever the program does
// next (an LSP initialize reply, the first model request) waits for the
// probe's helper starts; the first Run waits for the probe instead.
// Nothing is prestarted when no command could run.
func (r *Runner) startPrestart() {
	w := &r.sys.warm
	w.probing.Go(func() {
		p := r.probe()
		if p.err != nil {
			return
		}
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return
		}
		w.on, w.flags = true, p.flags
		w.mu.Unlock()
		r.refill()
	})
}

// Close turns prestarting off and ends the warm helper, if any, waiting
// for a probe or a helper being started. Commands still running are not
// affected; Run keeps working, without prestart.
func (r *Runner) Close() {
	w := &r.sys.warm
	w.mu.Lock()
	w.closed, w.on = true, false
	w.mu.Unlock()
	w.probing.Wait()
	w.mu.Lock()
	h, filled := w.slot, w.filled
	w.slot = nil
	w.mu.Unlock()
	if filled != nil {
		<-filled
		w.mu.Lock()
		if w.slot != nil {
			h, w.slot = w.slot, nil
		}
		w.mu.Unlock()
	}
	if h != nil {
		h.discard()
	}
	r.sys.bin.stopZygote()
}

// waitWarm waits until the background probe and a started fill have
// ended (tests and benchmarks).
func (r *Runner) waitWarm() {
	w := &r.sys.warm
	w.probing.Wait()
	w.mu.Lock()
	filled := w.filled
	w.mu.Unlock()
	if filled != nil {
		<-filled
	}
}

// takeWarm returns the warm helper when it was started for flags and is
// alive, and starts the next one.
func (r *Runner) takeWarm(flags uintptr) *warmHelper {
	w := &r.sys.warm
	w.mu.Lock()
	h := w.slot
	if h == nil || h.flags != flags {
		w.mu.Unlock()
		return nil
	}
	w.slot = nil
	w.mu.Unlock()
	w.used.Add(1)
	r.refill()
	select {
	case <-h.h.exited:
		h.discard() // killed while waiting: start a cold one instead
		return nil
	default:
	}
	return h
}

// refill starts a warm helper in the background unless one is ready or
// being started. The goroutine ends by itself; [Runner.Close] waits for
// it.
func (r *Runner) refill() {
	w := &r.sys.warm
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.on || w.slot != nil || w.filling {
		return
	}
	w.filling = true
	done := make(chan struct{})
	w.filled = done
	flags := w.flags
	go func() {
		defer close(done)
		h, err := launchWithPipes(r.sys.bin, flags)
		w.mu.Lock()
		w.filling = false
		keep := err == nil && w.on
		if keep {
			w.slot = h
		}
		w.mu.Unlock()
		switch {
		case err != nil:
			r.sys.probed.helperFailed()
			r.log.Debug("Warm helper did not start", slog.String("err", err.Error()))
		case !keep:
			h.discard() // Close came first
		}
	}()
}

// launchWithPipes starts a helper from bin with fresh output pipes.
func launchWithPipes(bin *helperBin, flags uintptr) (*warmHelper, error) {
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
	// Through Control, not Fd: Fd would put the pipe in blocking mode, and
	// a blocked read is not ended by Close (the drain bound in run).
	if rc, err := outR.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
	h, specW, err := launchHelper(bin, flags, outW, errW)
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
		w.h.kill()
		<-w.h.exited
	}
	w.h.reap()
	w.h.status.Close()
	w.outR.Close()
	w.errR.Close()
}
