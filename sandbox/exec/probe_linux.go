package exec

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// probeResult is what this kernel and user allow, found out once.
type probeResult struct {
	report  LayerReport
	err     error   // no helper: Exec refuses
	flags   uintptr // namespaces the helper starts in
	abi     int     // Landlock ABI, 0 without
	seccomp bool
	nproc   bool        // RLIMIT_NPROC is counted per user namespace
	cgroup  *pidsCgroup // pids.max instead of RLIMIT_NPROC, for root
	shell   string
	tc      toolchain
	etc     etcRules // with Landlock
}

// toolchain is the Go installation commands may read.
type toolchain struct{ goroot, gomodcache string }

// Layers reports which sandbox layers this kernel and user allow. The
// first call (or the first [Runner.Run]) finds out, starting the helper
// once, and tells [Options.OnLayerMissing] about each missing layer.
func (r *Runner) Layers() LayerReport {
	return r.probe().report
}

// probe finds out, once per runner, what the sandbox can do here.
func (r *Runner) probe() *probeResult {
	r.sys.probeOnce.Do(func() {
		r.sys.probed = runProbe()
		for _, l := range layerOrder {
			if why, ok := r.sys.probed.report.Missing[l]; ok && r.opts.OnLayerMissing != nil {
				r.opts.OnLayerMissing(l, why)
			}
		}
	})
	return r.sys.probed
}

func runProbe() *probeResult {
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
	var nsErr error
	p.flags, nsErr = probeNamespaces()
	for _, ns := range []struct {
		layer string
		flag  uintptr
	}{
		{LayerUserNamespace, unix.CLONE_NEWUSER},
		{LayerPIDNamespace, unix.CLONE_NEWPID},
		{LayerNetNamespace, unix.CLONE_NEWNET},
	} {
		if p.flags&ns.flag == 0 {
			missing[ns.layer] = fmt.Sprintf("cannot start a process in a new one (%v)", nsErr)
		}
	}
	if abi, err := landlockABI(); err != nil {
		missing[LayerLandlock] = landlockMissing(err)
	} else {
		p.abi = abi
	}
	if err := seccompSupported(); err != nil {
		missing[LayerSeccomp] = err.Error()
	} else {
		p.seccomp = true
	}
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
	var active []string
	for _, l := range layerOrder {
		if _, ok := missing[l]; !ok {
			active = append(active, l)
		}
	}
	p.report = LayerReport{Active: active, Missing: missing, LandlockABI: p.abi}
	return p
}

// layersFor lists the layers active for one command.
func (p *probeResult) layersFor(allowNetwork bool) []string {
	var out []string
	for _, l := range p.report.Active {
		if l == LayerNetNamespace && allowNetwork {
			continue
		}
		out = append(out, l)
	}
	return out
}

// probeNamespaces finds the largest set of namespaces the helper can be
// started in, trying smaller sets when the kernel or user refuses. It
// returns the error of the full set when that one failed.
func probeNamespaces() (uintptr, error) {
	const u, p, n = unix.CLONE_NEWUSER, unix.CLONE_NEWPID, unix.CLONE_NEWNET
	var first error
	for _, f := range []uintptr{u | p | n, u | p, u | n, u, p | n, p, n, 0} {
		err := probeHelper(f)
		if err == nil {
			return f, first
		}
		if first == nil {
			first = err
		}
	}
	return 0, first
}

// probeHelper starts the helper in the namespaces flags and checks that
// it answers (and is PID 1 in a new PID namespace).
func probeHelper(flags uintptr) error {
	h, err := startHelper(flags, nil, nil, &helperSpec{Probe: true})
	if err != nil {
		return err
	}
	t := time.AfterFunc(10*time.Second, func() { h.cmd.Process.Kill() })
	defer t.Stop()
	st, err := h.readStatus(nil)
	<-h.exited
	h.reap()
	switch {
	case err != nil:
		return err
	case flags&unix.CLONE_NEWPID != 0 && !st.PID1:
		return errors.New("the helper is not PID 1 in its PID namespace")
	}
	return nil
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
