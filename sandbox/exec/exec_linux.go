package exec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox"
)

// drainDelay bounds the wait for output after the command's process group
// is gone, when no PID namespace guarantees that every writer is dead.
const drainDelay = 500 * time.Millisecond

// pipeSize is the capacity asked for the output pipes: fewer wake-ups for
// chatty commands.
const pipeSize = 256 << 10

// sandboxHostname is the host name a command with its own UTS namespace
// sees.
const sandboxHostname = "agentls-sandbox"

// runnerSys is a [Runner]'s Linux state: what the probe found, the
// helper binary and the warm helper.
type runnerSys struct {
	probeOnce sync.Once
	probed    *probeResult
	bin       *helperBin // set by the probe; nil: /proc/self/exe
	warm      warmPool
	tools     toolchainCache
}

// Run runs spec.Command in the sandbox (S1–S4) and returns its result.
// It returns an error only when the command could not be run at all: a
// bad spec, a failed helper start, a layer that failed to apply. The
// server itself is never restricted: the restrictions apply to a
// re-executed helper (see [MaybeRunHelper]) and everything it starts.
//
// On timeout or cancellation the command gets SIGTERM (with a PID
// namespace every process in it does, setsid'd ones included), then after
// spec.Grace SIGKILL; the partial output is returned with a marker line.
// Run waits for nothing else: a command that exits at once returns at
// once.
func (r *Runner) Run(ctx context.Context, spec *Spec) (*Result, error) {
	s, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	p := r.probe()
	if p.err != nil {
		return nil, p.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // nothing ran
	}
	res, err := r.runSpec(ctx, s, p)
	if err != nil && s.Stage != nil && errors.Is(err, errStageMount) {
		// This workspace (or stage) cannot be overlaid although the
		// probe's could: nothing ran, so it runs unstaged, with the
		// stricter protection, and says why (a fallback, S9).
		why := err.Error()
		u := *s
		u.Stage = nil
		res, err = r.runSpec(ctx, &u, p)
		if res != nil {
			res.StageError = why
		}
	}
	return res, err
}

// runSpec runs the command of s, with defaults filled in, as p allows.
func (r *Runner) runSpec(ctx context.Context, s *Spec, p *probeResult) (*Result, error) {
	staged := s.Stage != nil && p.stage
	tmp, err := privateTemp(s.Dir, staged)
	if err != nil {
		return nil, fmt.Errorf("sandbox: private temp dir: %w", err)
	}
	defer removeTree(tmp)
	flags := p.flags
	if s.AllowNetwork {
		flags &^= unix.CLONE_NEWNET
	}
	pidns := flags&unix.CLONE_NEWPID != 0
	gocache := goCacheDir(s.CacheDir, tmp, s.Dir)
	if staged && within(gocache, s.Dir) {
		// Beneath the overlay its writes would be the command's changes
		// (a workspace that holds the cache directory, such as $HOME).
		gocache = filepath.Join(tmp, "go-build")
	}
	home, _ := os.UserHomeDir()
	tools := r.sys.tools.get(home, os.Getenv("PATH"), s.Dir, os.TempDir(), os.Getenv)
	var plan *controlPlan
	if !s.UserApproved && !staged {
		var others []string
		if !within(gocache, tmp) {
			others = append(others, gocache)
		}
		plan = planControl(s.Dir, others)
	}
	hs := &helperSpec{
		Shell: p.shell, Command: s.Command, Dir: s.Dir, Limits: s.Limits,
		NPROC: p.nproc, Seccomp: p.seccomp, DiskWatch: p.diskWatch,
		Env: commandEnv(envInput{
			parent: os.Environ(), extra: s.Env, tmp: tmp, shell: p.shell,
			goroot: p.tc.goroot, gomodcache: p.tc.gomodcache, gocache: gocache,
			toolchain: tools.env, allowNetwork: s.AllowNetwork,
		}),
	}
	if flags&unix.CLONE_NEWNS != 0 {
		hs.Mounts = &mountSpec{Proc: pidns && p.ownProc}
		if plan != nil {
			hs.Mounts.ReadOnly = plan.readOnly
		}
		if staged {
			hs.Mounts.Overlays = []overlayMount{stageMount(s)}
			hs.DiskDirs = []string{s.Stage.Upper, tmp}
		}
		if warm := warmFor(s, staged, gocache, tmp); warm != nil {
			defer warm.finish()
			hs.Mounts.Overlays = append(hs.Mounts.Overlays, warm.mount)
			hs.DiskDirs = append(hs.DiskDirs, warm.mount.Upper)
		}
	}
	if flags&unix.CLONE_NEWUTS != 0 {
		hs.Hostname = sandboxHostname
	}
	if p.abi > 0 {
		denyTCP := !s.AllowNetwork && flags&unix.CLONE_NEWNET == 0
		hs.Landlock = buildLandlock(p, s, tmp, gocache, tools.read, plan, denyTCP)
	}
	if p.cgroup != nil {
		dir, err := p.cgroup.create(s.Limits.Processes)
		if err != nil {
			return nil, fmt.Errorf("sandbox: pids cgroup: %w", err)
		}
		defer p.cgroup.remove(dir)
		hs.Cgroup, hs.CgroupHome = dir, p.cgroup.home
	}
	res, err := r.run(ctx, s, hs, flags, pidns, p.layersFor(flags, staged))
	if res != nil {
		res.Staged = staged
	}
	return res, err
}

// run starts the helper and collects the result.
func (r *Runner) run(ctx context.Context, s *Spec, hs *helperSpec, flags uintptr, pidns bool, layers []string) (*Result, error) {
	start := time.Now()
	w := r.takeWarm(flags)
	if w == nil {
		var err error
		if w, err = launchWithPipes(r.sys.bin, flags); err != nil {
			r.sys.probed.helperFailed()
			return nil, fmt.Errorf("sandbox: starting the helper: %w", err)
		}
	}
	h, outR, errR := w.h, w.outR, w.errR
	sendSpec(w.specW, hs)
	stdout, stderr := newCapBuffer(StdoutCap), newCapBuffer(StderrCap)
	var copies sync.WaitGroup
	copies.Go(func() { copyOut(stdout, outR) })
	copies.Go(func() { copyOut(stderr, errR) })
	statusc := make(chan statusOrErr, 1)
	started := make(chan struct{})
	go func() {
		st, err := h.readStatus(func() { close(started) })
		statusc <- statusOrErr{st, err}
	}()

	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	var stopped string
	var stopAfter time.Duration
	select {
	case <-h.exited:
	case <-timer.C:
		stopped, stopAfter = "timed out", s.Timeout
	case <-ctx.Done():
		stopped, stopAfter = "cancelled", time.Since(start)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			stopped = "timed out"
		}
	}
	if stopped != "" {
		select {
		case <-started:
			h.signal(unix.SIGTERM, pidns)
		default:
			// Before its Go runtime has a handler, a PID-namespace init
			// drops SIGTERM; and no command runs yet that could stop
			// gracefully.
			h.signal(unix.SIGKILL, pidns)
		}
		grace := time.NewTimer(s.Grace)
		select {
		case <-h.exited:
		case <-grace.C:
			h.signal(unix.SIGKILL, pidns)
			<-h.exited
		}
		grace.Stop()
	}
	dur := time.Since(start)
	if !pidns {
		// Leftovers of the group may hold the pipes; with a PID namespace
		// the kernel has killed them all before init's exit. Init is not
		// reaped yet, so its process group ID cannot have been reused.
		unix.Kill(-h.pid, unix.SIGKILL)
	}
	waitErr := h.reap()
	drained := make(chan struct{})
	go func() { copies.Wait(); close(drained) }()
	// With a PID namespace every writer died with init, and the output
	// ends at once; the bound still holds should a descriptor have
	// leaked anywhere else (the zygote's copies, say): never a hang.
	select {
	case <-drained:
	case <-time.After(drainDelay):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()
	so := <-statusc

	res := &Result{
		Stdout: stdout.String(), Stderr: stderr.String(),
		StdoutBytes: stdout.Total(), StderrBytes: stderr.Total(),
		Duration: dur, Layers: layers,
	}
	switch {
	case so.err == nil && strings.HasPrefix(so.st.Error, stageMountError):
		return nil, fmt.Errorf("%w: %s", errStageMount, so.st.Error) // nothing ran
	case so.err == nil && so.st.Error != "":
		r.sys.probed.helperFailed() // the probe (maybe a cached one) promised this would work
		return nil, fmt.Errorf("sandbox: %s", so.st.Error)
	case so.err == nil:
		res.ExitCode, res.DiskExceeded = so.st.Exit, so.st.Disk
		if so.st.Signal != 0 {
			res.Signal = unix.SignalName(syscall.Signal(so.st.Signal))
		}
	default: // init was killed (SIGKILL after the grace) or crashed
		res.ExitCode, res.Signal = h.exitOf()
		if stopped == "" {
			return nil, fmt.Errorf("sandbox: the helper died: %v", waitErr)
		}
	}
	switch stopped {
	case "timed out":
		res.TimedOut = true
	case "cancelled":
		res.Canceled = true
	}
	if stopped != "" {
		res.Stdout = appendLine(res.Stdout, stopMarker(stopped, stopAfter))
	}
	if res.DiskExceeded {
		res.Stdout = appendLine(res.Stdout, diskMarker(s.Limits.DiskBytes))
	}
	staged := hs.Mounts != nil && len(hs.Mounts.Overlays) > 0
	if !s.UserApproved && !staged && refusedWrite(res) {
		res.Stderr = appendLine(res.Stderr, controlNote)
	}
	return res, nil
}

type statusOrErr struct {
	st  helperStatus
	err error
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

// goCacheDir returns the GOCACHE for commands in workspace ws (see
// [Spec.CacheDir]), creating it: CacheDir/ws/<first 16 bytes of the
// SHA-256 of ws, in hex>/go-build.
func goCacheDir(cacheDir, tmp, ws string) string {
	if cacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			cacheDir = filepath.Join(d, "agentls", "sandbox")
		}
	}
	if cacheDir != "" {
		if r, err := filepath.EvalSymlinks(ws); err == nil {
			ws = r
		}
		sum := sha256.Sum256([]byte(ws))
		dir := filepath.Join(cacheDir, "ws", hex.EncodeToString(sum[:16]), "go-build")
		if os.MkdirAll(dir, 0o700) == nil {
			return dir
		}
	}
	return filepath.Join(tmp, "go-build")
}

// removeTree removes the private temp dir and the like (see
// [sandbox.RemoveTree]).
func removeTree(dir string) { sandbox.RemoveTree(dir) }

// privateTemp makes the command's private temp dir (its HOME and
// TMPDIR). A staged command's must lie outside the workspace: beneath the
// overlay, what the command writes there would be its changes.
func privateTemp(ws string, staged bool) (string, error) {
	var err error
	for _, base := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if staged && within(base, ws) {
			continue
		}
		var d string
		if d, err = os.MkdirTemp(base, "agentls-exec-"); err == nil {
			return d, nil
		}
	}
	if err == nil {
		err = errors.New("every temp dir lies in the workspace")
	}
	return "", err
}
