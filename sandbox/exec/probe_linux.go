package exec

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// probeResult is what this kernel and user allow, found out once.
type probeResult struct {
	report  LayerReport
	err     error   // no helper: Exec refuses
	flags   uintptr // namespaces the helper starts in
	abi     int     // Landlock ABI, 0 without
	seccomp bool
	ownProc bool // a fresh /proc can be mounted in the PID namespace
	stage   bool // an overlay of the workspace can be mounted (S9)
	// diskWatch: the helper can read the I/O accounting for the disk
	// budget.
	diskWatch bool
	nproc     bool        // RLIMIT_NPROC is counted per user namespace
	cgroup    *pidsCgroup // pids.max instead of RLIMIT_NPROC, for root
	shell     string
	tc        toolchain
	etc       etcRules // with Landlock
	// cache holds the namespaces found (or is nil): see
	// [probeResult.helperFailed].
	cache *probeCache
}

// probeLaunches counts the probe's helper starts (tests).
var probeLaunches atomic.Int64

// toolchain is the Go installation commands may read.
type toolchain struct{ goroot, gomodcache string }

// Layers reports which sandbox layers this kernel and user allow. The
// probe finds out once per runner, starting helpers (unless a probe of
// this boot, user and helper found every layer: see probe_cache_linux.go),
// and tells
// [Options.OnLayerMissing] about each missing layer: the first call (or
// the first [Runner.Run]) runs it, or waits for the background probe of
// [Options.Prestart].
func (r *Runner) Layers() LayerReport {
	return r.probe().report
}

// probe finds out, once per runner, which helper to start and what the
// sandbox can do here. Callers wait for a probe under way (one that
// [New] started in the background with Prestart).
func (r *Runner) probe() *probeResult {
	r.sys.probeOnce.Do(func() {
		if r.opts.beforeProbe != nil {
			r.opts.beforeProbe()
		}
		var c *probeCache
		if helperHooked.Load() {
			r.sys.bin, c = pickHelper(r.opts.Helper, r.log)
		}
		r.sys.probed = runProbe(r.sys.bin, c)
		for _, l := range layerOrder {
			if why, ok := r.sys.probed.report.Missing[l]; ok && r.opts.OnLayerMissing != nil {
				r.opts.OnLayerMissing(l, why)
			}
		}
	})
	return r.sys.probed
}

// runProbe finds out what the sandbox can do, starting helpers from bin
// unless cache c holds what they would find.
func runProbe(bin *helperBin, c *probeCache) *probeResult {
	p := &probeResult{shell: pickShell(), tc: findToolchain()}
	missing := map[string]string{}
	if !helperHooked.Load() {
		p.err = ErrNoHelper
		for _, l := range layerOrder {
			missing[l] = "main did not call exec.MaybeRunHelper, so no command can run"
		}
		p.report = LayerReport{Missing: missing}
		return p
	}
	p.probeKernel(missing)
	var ns nsProbe
	if c != nil && c.hit && len(missing) == 0 {
		ns = nsProbe{flags: allNamespaces, proc: true, stage: true}
	} else {
		ns = probeNamespaces(bin)
	}
	p.useNamespaces(ns, missing)
	p.probeProcessLimit(missing)
	if len(missing) == 0 && p.flags == allNamespaces && p.ownProc {
		c.store()
		p.cache = c
	}
	var active []string
	for _, l := range layerOrder {
		if _, ok := missing[l]; !ok {
			active = append(active, l)
		}
	}
	p.report = LayerReport{Active: active, Missing: missing, LandlockABI: p.abi}
	return p
}

// probeKernel checks what needs no helper start: the I/O accounting of
// the disk budget, Landlock and seccomp. It records what is missing, and
// why, in missing.
func (p *probeResult) probeKernel(missing map[string]string) {
	if err := diskAccounting(); err != nil {
		missing[LayerDiskBudget] = fmt.Sprintf("no per-process I/O accounting in /proc/PID/io (%v); only RLIMIT_FSIZE bounds each file", err)
	} else {
		p.diskWatch = true
	}
	if abi, err := landlockABI(); err != nil {
		missing[LayerLandlock] = landlockMissing(err)
	} else {
		p.abi = abi
	}
	if err := child.SeccompSupported(); err != nil {
		missing[LayerSeccomp] = err.Error()
	} else {
		p.seccomp = true
	}
}

// useNamespaces takes the namespaces ns found, and records in missing
// the layers that lack theirs.
func (p *probeResult) useNamespaces(ns nsProbe, missing map[string]string) {
	p.flags, p.ownProc, p.stage = ns.flags, ns.proc, ns.stage
	for _, l := range []struct {
		layer string
		flag  uintptr
	}{
		{LayerUserNamespace, unix.CLONE_NEWUSER},
		{LayerPIDNamespace, unix.CLONE_NEWPID},
		{LayerNetNamespace, unix.CLONE_NEWNET},
	} {
		if p.flags&l.flag == 0 {
			missing[l.layer] = fmt.Sprintf("cannot start a process in a new one (%v)", ns.err)
		}
	}
	if p.flags&unix.CLONE_NEWNS == 0 {
		missing[LayerMountNamespace] = ns.mountWhy + "; existing control files are protected by Landlock alone"
	}
	if !p.stage {
		why := ns.stageWhy
		if why == "" {
			why = "no mount namespace"
		}
		missing[LayerStaging] = why + "; commands write the workspace directly, and one that runs unasked " +
			"cannot change its top level or the control files (S6)"
	}
	switch {
	case p.flags&unix.CLONE_NEWPID == 0:
		missing[LayerProcfs] = "no PID namespace: commands see the host's /proc"
	case p.flags&unix.CLONE_NEWNS == 0:
		missing[LayerProcfs] = "no mount namespace: commands see the host's /proc"
	case !p.ownProc:
		missing[LayerProcfs] = ns.procWhy + "; commands see the host's /proc"
	}
	if p.flags&unix.CLONE_NEWUTS == 0 {
		missing[LayerUTSNamespace] = ns.utsWhy
	}
}

// probeProcessLimit picks how the number of processes is bounded:
// RLIMIT_NPROC in a user namespace, a pids cgroup for root.
func (p *probeResult) probeProcessLimit(missing map[string]string) {
	switch {
	case os.Geteuid() != 0 && p.flags&unix.CLONE_NEWUSER != 0:
		p.nproc = true
	case os.Geteuid() != 0:
		missing[LayerProcessLimit] = "without a user namespace RLIMIT_NPROC would count every process of the user"
	default:
		cg, err := findPidsCgroup()
		if err != nil {
			missing[LayerProcessLimit] = fmt.Sprintf("the kernel does not apply RLIMIT_NPROC to uid 0, and no pids cgroup is writable (%v)", err)
		}
		p.cgroup = cg
	}
}

// layersFor lists the layers active for one command started in the
// namespaces flags (the network namespace is dropped with AllowNetwork).
func (p *probeResult) layersFor(flags uintptr, staged bool) []string {
	var out []string
	for _, l := range p.report.Active {
		switch {
		case l == LayerStaging && !staged:
			continue
		case l == LayerNetNamespace && flags&unix.CLONE_NEWNET == 0,
			l == LayerPIDNamespace && flags&unix.CLONE_NEWPID == 0,
			l == LayerProcfs && flags&unix.CLONE_NEWPID == 0:
			continue
		}
		out = append(out, l)
	}
	return out
}

// nsProbe is what probeNamespaces found.
type nsProbe struct {
	flags uintptr // the namespaces the helper starts in
	proc  bool    // a fresh /proc works there
	stage bool    // an unprivileged overlay works there
	err   error   // why the full set of user, PID and network namespaces failed
	// Why the mount namespace, the fresh /proc and the UTS namespace are
	// not used.
	mountWhy, procWhy, utsWhy, stageWhy string
}

// probeNamespaces finds the largest set of user, PID and network
// namespaces the helper can be started in, trying smaller sets when the
// kernel or user refuses, and then whether a mount namespace (with
// read-only bind mounts and, with a PID namespace, a fresh /proc) and a
// UTS namespace work on top of it.
func probeNamespaces(bin *helperBin) nsProbe {
	const u, p, n = unix.CLONE_NEWUSER, unix.CLONE_NEWPID, unix.CLONE_NEWNET
	var r nsProbe
	base := uintptr(0)
	for _, f := range []uintptr{u | p | n, u | p, u | n, u, p | n, p, n} {
		_, err := probeHelper(bin, f, nil, "")
		if err == nil {
			base = f
			break
		}
		if r.err == nil {
			r.err = err
		}
	}
	r.flags = base
	scratch, err := os.MkdirTemp("", "agentls-probe-")
	if err != nil {
		r.mountWhy, r.procWhy = "no scratch directory to try a read-only bind mount in: "+err.Error(), "not tried"
		scratch = ""
	} else {
		defer removeTree(scratch) // the overlay's work dir has an entry without permissions
	}
	m := &child.Mounts{Proc: base&p != 0}
	var ovl *child.Overlay
	if scratch != "" {
		ro := filepath.Join(scratch, "ro")
		os.Mkdir(ro, 0o700)
		m.ReadOnly = []string{ro}
		if ovl = probeOverlay(scratch); ovl != nil {
			m.Overlays = []child.Overlay{*ovl}
		}
	}
	st, err := probeHelper(bin, base|unix.CLONE_NEWNS|unix.CLONE_NEWUTS, m, sandboxHostname)
	if err != nil { // one of the two is refused: try each alone
		var stm, stu child.Status
		var errm, erru error
		stm, errm = probeHelper(bin, base|unix.CLONE_NEWNS, m, "")
		stu, erru = probeHelper(bin, base|unix.CLONE_NEWUTS, nil, sandboxHostname)
		st = child.Status{MountErr: stm.MountErr, ProcErr: stm.ProcErr, UTSErr: stu.UTSErr, StageErr: stm.StageErr}
		if errm != nil {
			st.MountErr = "cannot start a process in a new one (" + errm.Error() + ")"
		}
		if erru != nil {
			st.UTSErr = "cannot start a process in a new one (" + erru.Error() + ")"
		}
	}
	switch {
	case r.mountWhy != "":
	case st.MountErr != "":
		r.mountWhy = st.MountErr
	default:
		r.flags |= unix.CLONE_NEWNS
		if base&p != 0 && st.ProcErr == "" {
			r.proc = true
		}
		r.procWhy = st.ProcErr
		r.stage, r.stageWhy = stageWorked(ovl, st.StageErr)
	}
	if st.UTSErr == "" {
		r.flags |= unix.CLONE_NEWUTS
	} else {
		r.utsWhy = st.UTSErr
	}
	return r
}

// probeHelper starts the helper from bin in the namespaces flags, has it
// try the mounts m and the host name (when not nil and not ""), and
// checks that it answers (and is PID 1 in a new PID namespace).
func probeHelper(bin *helperBin, flags uintptr, m *child.Mounts, hostname string) (child.Status, error) {
	probeLaunches.Add(1)
	h, err := startHelper(bin, flags, nil, nil, &child.Spec{Probe: true, Mounts: m, Hostname: hostname})
	if err != nil {
		return child.Status{}, err
	}
	t := time.AfterFunc(10*time.Second, func() { h.kill() })
	defer t.Stop()
	st, err := h.readStatus(nil)
	<-h.exited
	h.reap()
	switch {
	case err != nil:
		return st, err
	case st.Error != "": // the launcher could not start init in flags
		return st, errors.New(st.Error)
	case flags&unix.CLONE_NEWPID != 0 && !st.PID1:
		return st, errors.New("the helper is not PID 1 in its PID namespace")
	}
	return st, nil
}

// pickShell prefers bash.
func pickShell() string {
	if unix.Access("/bin/bash", unix.X_OK) == nil {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// findToolchain locates GOROOT (from the environment or the go on PATH)
// and the module cache, which commands may read.
func findToolchain() toolchain {
	var tc toolchain
	tc.goroot = os.Getenv("GOROOT")
	if tc.goroot == "" {
		if p, err := osexec.LookPath("go"); err == nil {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				tc.goroot = filepath.Dir(filepath.Dir(r))
			}
		}
	}
	if fi, err := os.Stat(filepath.Join(tc.goroot, "src", "runtime")); tc.goroot != "" && (err != nil || !fi.IsDir()) {
		tc.goroot = ""
	}
	tc.gomodcache = os.Getenv("GOMODCACHE")
	if tc.gomodcache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			if home, err := os.UserHomeDir(); err == nil {
				gopath = filepath.Join(home, "go")
			}
		}
		if first, _, _ := strings.Cut(gopath, string(os.PathListSeparator)); first != "" {
			tc.gomodcache = filepath.Join(first, "pkg", "mod")
		}
	}
	return tc
}

// probeOverlay makes the directories of a trial overlay in scratch, or
// returns nil when it cannot.
func probeOverlay(scratch string) *child.Overlay {
	lower := filepath.Join(scratch, "lower")
	o := &child.Overlay{Target: lower, Lowers: []string{lower}, Upper: filepath.Join(scratch, "upper"), Work: filepath.Join(scratch, "work")}
	for _, d := range []string{lower, o.Upper, o.Work} {
		if os.Mkdir(d, 0o700) != nil {
			return nil
		}
	}
	return o
}

// stageWorked checks the probe's overlay trial from outside: its file
// must be in the upper layer and not in the lower one.
func stageWorked(o *child.Overlay, why string) (bool, string) {
	switch {
	case o == nil:
		return false, "no scratch directory to try an overlay in"
	case why != "":
		return false, why
	}
	if _, err := os.Stat(filepath.Join(o.Target, "probe")); err == nil {
		return false, "a write through the overlay reached its lower layer"
	}
	if _, err := os.Stat(filepath.Join(o.Upper, "probe")); err != nil {
		return false, "a write through the overlay did not reach its upper layer"
	}
	return true, ""
}

// diskAccounting reports whether this kernel keeps per-process I/O
// accounting that the budget can read, and why not.
func diskAccounting() error {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), "write_bytes:") {
		return unix.ENOTSUP
	}
	return nil
}
