package exec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/exec/internal/child"
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

// MaybeRunHelper must be the first call in the program's main (and in
// TestMain of tests that call [Runner.Run]): when the process is the
// sandbox helper (the zygote or a command's init) it does the helper's
// work and exits; otherwise it returns at once. Package init functions
// run before it in the helper too, so they must not have side effects.
func MaybeRunHelper() {
	helperHooked.Store(true)
	child.MaybeRun()
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
	hs := &child.Spec{
		Shell: p.shell, Command: s.Command, Dir: s.Dir, Limits: child.Limits(s.Limits),
		NPROC: p.nproc, Seccomp: p.seccomp, DiskWatch: p.diskWatch,
		Env: commandEnv(envInput{
			parent: os.Environ(), extra: s.Env, tmp: tmp, shell: p.shell,
			goroot: p.tc.goroot, gomodcache: p.tc.gomodcache, gocache: gocache,
			toolchain: tools.env, allowNetwork: s.AllowNetwork,
		}),
	}
	if flags&unix.CLONE_NEWNS != 0 {
		hs.Mounts = &child.Mounts{Proc: pidns && p.ownProc}
		if plan != nil {
			hs.Mounts.ReadOnly = plan.readOnly
		}
		if staged {
			hs.Mounts.Overlays = []child.Overlay{stageMount(s)}
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
