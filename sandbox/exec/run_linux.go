package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// One command's run in the server, in three steps: [Runner.start] hands
// init its spec and starts reading its output and status, [running.wait]
// waits for it (stopping it on timeout or cancellation) until its output
// has ended, and [Runner.collect] turns what came back into a [Result].

// run starts the helper, waits for the command and collects the result.
func (r *Runner) run(ctx context.Context, s *Spec, hs *child.Spec, flags uintptr, pidns bool, layers []string) (*Result, error) {
	c, err := r.start(hs, flags)
	if err != nil {
		return nil, err
	}
	e := c.wait(ctx, s, pidns)
	return r.collect(c, s, hs, e, layers)
}

// running is one command between start and collect.
type running struct {
	begun          time.Time
	h              *helperProc
	outR, errR     *os.File // read ends of the output pipes
	stdout, stderr *capBuffer
	copies         sync.WaitGroup   // copyOut of stdout and stderr
	status         chan statusOrErr // init's final report
	started        chan struct{}    // closed once the shell runs
}

type statusOrErr struct {
	st  child.Status
	err error
}

// ending is what [running.wait] saw: whether it stopped the command, and
// how the helper ended.
type ending struct {
	stopped   string        // "timed out", "cancelled", or "" when the command exited by itself
	stopAfter time.Duration // for the stop marker
	dur       time.Duration
	waitErr   error // why the helper died, if not by its own exit (see helperProc.reap)
	status    statusOrErr
}

// start takes the warm helper or starts one in the namespaces flags,
// hands it hs, and starts reading its output and status.
func (r *Runner) start(hs *child.Spec, flags uintptr) (*running, error) {
	begun := time.Now()
	w := r.takeWarm(flags)
	if w == nil {
		var err error
		if w, err = launchWithPipes(r.sys.bin, flags); err != nil {
			r.sys.probed.helperFailed()
			return nil, fmt.Errorf("sandbox: starting the helper: %w", err)
		}
	}
	sendSpec(w.specW, hs)
	c := &running{
		begun: begun, h: w.h, outR: w.outR, errR: w.errR,
		stdout: newCapBuffer(StdoutCap), stderr: newCapBuffer(StderrCap),
		status: make(chan statusOrErr, 1), started: make(chan struct{}),
	}
	c.copies.Go(func() { copyOut(c.stdout, c.outR) })
	c.copies.Go(func() { copyOut(c.stderr, c.errR) })
	go func() {
		st, err := c.h.readStatus(func() { close(c.started) })
		c.status <- statusOrErr{st, err}
	}()
	return c, nil
}

// wait waits until init exits, stopping the command on timeout or when
// ctx ends, reaps init and waits for the output to end and the final
// status.
func (c *running) wait(ctx context.Context, s *Spec, pidns bool) ending {
	var e ending
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	select {
	case <-c.h.exited:
	case <-timer.C:
		e.stopped, e.stopAfter = "timed out", s.Timeout
	case <-ctx.Done():
		e.stopped, e.stopAfter = "cancelled", time.Since(c.begun)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e.stopped = "timed out"
		}
	}
	if e.stopped != "" {
		c.stop(s.Grace, pidns)
	}
	e.dur = time.Since(c.begun)
	if !pidns {
		// Leftovers of the group may hold the pipes; with a PID namespace
		// the kernel has killed them all before init's exit. Init is not
		// reaped yet, so its process group ID cannot have been reused.
		unix.Kill(-c.h.pid, unix.SIGKILL)
	}
	e.waitErr = c.h.reap()
	c.drain()
	e.status = <-c.status
	return e
}

// stop ends the command: SIGTERM, then SIGKILL after grace; it returns
// once init has exited.
func (c *running) stop(grace time.Duration, pidns bool) {
	h := c.h
	select {
	case <-c.started:
		h.signal(unix.SIGTERM, pidns)
	default:
		// Before its Go runtime has a handler, a PID-namespace init
		// drops SIGTERM; and no command runs yet that could stop
		// gracefully.
		h.signal(unix.SIGKILL, pidns)
	}
	t := time.NewTimer(grace)
	select {
	case <-h.exited:
	case <-t.C:
		h.signal(unix.SIGKILL, pidns)
		<-h.exited
	}
	t.Stop()
}

// drain waits for the output copies to end, within drainDelay, and closes
// the pipes.
func (c *running) drain() {
	drained := make(chan struct{})
	go func() { c.copies.Wait(); close(drained) }()
	// With a PID namespace every writer died with init, and the output
	// ends at once; the bound still holds should a descriptor have
	// leaked anywhere else (the zygote's copies, say): never a hang.
	select {
	case <-drained:
	case <-time.After(drainDelay):
		c.outR.Close()
		c.errR.Close()
		<-drained
	}
	c.outR.Close()
	c.errR.Close()
}

// collect turns what the command left into its result, or into an error
// when init failed to set it up (nothing ran) or died on its own.
func (r *Runner) collect(c *running, s *Spec, hs *child.Spec, e ending, layers []string) (*Result, error) {
	res := &Result{
		Stdout: c.stdout.String(), Stderr: c.stderr.String(),
		StdoutBytes: c.stdout.Total(), StderrBytes: c.stderr.Total(),
		Duration: e.dur, Layers: layers,
	}
	so := e.status
	switch {
	case so.err == nil && strings.HasPrefix(so.st.Error, child.StageMountError):
		return nil, fmt.Errorf("%w: %s", errStageMount, so.st.Error) // nothing ran
	case so.err == nil && so.st.Error != "":
		r.sys.probed.helperFailed() // the probe (maybe a cached one) promised this would work
		return nil, fmt.Errorf("sandbox: %s", so.st.Error)
	case so.err == nil:
		res.ExitCode, res.DiskExceeded = so.st.Exit, so.st.Disk
		if so.st.Signal != 0 {
			res.Signal = unix.SignalName(syscall.Signal(so.st.Signal))
		}
	case c.lostMidCommand(e):
		res.ExitCode, res.HelperLost = -1, true
	default: // init was killed (SIGKILL after the grace) or crashed
		res.ExitCode, res.Signal = c.h.exitOf()
		if e.stopped == "" {
			return nil, fmt.Errorf("sandbox: the helper died: %v", e.waitErr)
		}
	}
	annotate(res, s, hs, e)
	return res, nil
}

// lostMidCommand reports whether init ended without its report because
// the zygote was lost after the shell had started: the command's output
// so far is then a result, not a failure to start (issue 26 item 7a).
// Lost before the start, nothing ran and the start failed.
func (c *running) lostMidCommand(e ending) bool {
	if e.status.err == nil || !errors.Is(e.waitErr, errZygoteGone) {
		return false
	}
	select {
	case <-c.started: // closed before the status is sent, if ever
		return true
	default:
		return false
	}
}

// annotate marks res with why the command was stopped, a disk budget it
// passed, and a hint when it seems to have hit the control-file
// protection.
func annotate(res *Result, s *Spec, hs *child.Spec, e ending) {
	switch e.stopped {
	case "timed out":
		res.TimedOut = true
	case "cancelled":
		res.Canceled = true
	}
	if e.stopped != "" {
		res.Stdout = appendLine(res.Stdout, stopMarker(e.stopped, e.stopAfter))
	}
	if res.HelperLost {
		res.Stdout = appendLine(res.Stdout, helperLostMarker)
	}
	if res.DiskExceeded {
		res.Stdout = appendLine(res.Stdout, diskMarker(s.Limits.DiskBytes))
	}
	staged := hs.Mounts != nil && len(hs.Mounts.Overlays) > 0
	if !s.UserApproved && !staged && refusedWrite(res) {
		res.Stderr = appendLine(res.Stderr, controlNote)
	}
}

// copyBufs are copyOut's buffers, reused across commands (issue 16: two
// per command were a fifth of a session's allocations).
var copyBufs = sync.Pool{New: func() any { return new([64 << 10]byte) }}

// copyOut reads r to EOF (or until it is closed) into b.
func copyOut(b *capBuffer, r io.Reader) {
	buf := copyBufs.Get().(*[64 << 10]byte)
	defer copyBufs.Put(buf)
	// Only the Reader: an *os.File's WriteTo would copy through a buffer
	// of its own, allocated each time.
	io.CopyBuffer(b, struct{ io.Reader }{r}, buf[:])
}
