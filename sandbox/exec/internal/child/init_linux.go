package child

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// The helper is the small cmd/agentls-sandbox binary (sandbox/exec's
// Options.Helper) or a re-execution of the server's own (/proc/self/exe),
// recognised by argv[0] and RoleEnv, started by Runner.Run in the new
// namespaces; both run this same code. It is the command's init:
//
//   - On its locked main thread it joins the pids cgroup, sets
//     no_new_privs, Landlock and seccomp and drops every capability, and
//     forks the shell from that thread, so the shell inherits every
//     restriction before its first instruction. The shell sets the
//     rlimits itself, first thing (see rlimitPreamble).
//   - It stays behind to wait. With a PID namespace it is PID 1 there: it
//     forwards SIGTERM to every process of the namespace, reaps orphans,
//     and reports the shell's status; when it exits the kernel kills
//     whatever is left. Without one it is a child subreaper that kills
//     the leftovers itself.
//
// Its other threads are not restricted (before ABI 8 Landlock binds the
// calling thread only, and syscall.AllThreadsSyscall is unavailable in
// programs that use cgo), so nothing restricted may reach into them:
// seccomp refuses ptrace, process_vm_* and pidfd_getfd; Landlock keeps
// /proc read-only (no /proc/PID/mem writes); and init is not dumpable
// while the shell has no capabilities, which blocks ptrace checks even
// where seccomp is missing.
//
// Everything in this file and the other init_*.go files runs in init,
// never in the server: the spec and status it exchanges with the server
// are in protocol_linux.go.

// readSpec reads the JSON spec from fd 3 and closes it.
func readSpec() (*Spec, error) {
	f := os.NewFile(SpecFD, "spec")
	if f == nil {
		return nil, errors.New("no spec pipe")
	}
	defer f.Close()
	var s Spec
	if err := json.NewDecoder(f).Decode(&s); err != nil {
		return nil, fmt.Errorf("reading the spec: %w", err)
	}
	return &s, nil
}

// runInit is the helper; see the comment above.
func runInit() int {
	fdErr := closeOnExecFrom(SpecFD)
	status := os.NewFile(StatusFD, "status")
	unix.CloseOnExec(StatusFD)
	report := func(st Status) int {
		json.NewEncoder(status).Encode(st)
		return 0
	}
	spec, err := readSpec()
	if err != nil {
		return report(Status{Error: err.Error()})
	}
	if fdErr != nil {
		return report(Status{Error: "closing inherited descriptors: " + fdErr.Error()})
	}
	pid1 := os.Getpid() == 1
	if spec.Probe {
		st := Status{PID1: pid1, Version: Version()}
		st.MountErr, st.ProcErr, st.UTSErr, st.StageErr = probeMounts(spec.Mounts, spec.Hostname)
		return report(st)
	}
	if spec.Mounts != nil {
		if err := setupMounts(spec.Mounts); err != nil {
			return report(Status{Error: err.Error()})
		}
	}
	if spec.Hostname != "" {
		if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
			return report(Status{Error: "setting the host name: " + err.Error()})
		}
	}
	// Signals are caught before the thread is locked: the goroutines
	// os/signal starts then need no thread of their own made through the
	// runtime's template thread (0.2 ms of each command, issue 16).
	var got atomic.Int32 // the last signal received
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT)
	go func() {
		for s := range sigs {
			got.Store(int32(s.(syscall.Signal)))
			if pid1 {
				unix.Kill(-1, s.(syscall.Signal)) // everyone in the namespace but init
			}
			// Without a PID namespace Run signals the process group,
			// init included, and init must not die before the shell.
		}
	}()
	// Every restriction below binds this thread; the shell is forked from
	// it, and its Pdeathsig follows it too.
	runtime.LockOSThread()
	if !pid1 {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	pid, err := startShell(spec)
	if err != nil {
		return report(Status{Error: err.Error()})
	}
	report(Status{Started: true})
	// A signal that came before the shell existed reached nobody.
	if sig := syscall.Signal(got.Load()); sig != 0 {
		if pid1 {
			unix.Kill(-1, sig)
		} else {
			unix.Kill(pid, sig)
		}
	}
	var disk *diskWatch
	if spec.DiskWatch || len(spec.DiskDirs) > 0 {
		disk = watchDisk(spec.Limits.DiskBytes, spec.DiskWatch, spec.DiskDirs, func() { killCommand(pid1) })
	}
	st := waitFor(pid)
	if disk != nil {
		st.Disk = disk.end()
	}
	reapAll(pid1)
	return report(st)
}

// killCommand kills every process of the command: with a PID namespace
// all but init, without one init's descendants, twice over to catch
// those forked meanwhile (reapAll gets the rest).
func killCommand(pid1 bool) {
	if pid1 {
		unix.Kill(-1, unix.SIGKILL)
		return
	}
	for range 2 {
		queue := children()
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			unix.Kill(p, unix.SIGKILL)
			queue = append(queue, childrenOf(p)...)
		}
	}
}

// startShell restricts the calling thread and forks the shell from it.
func startShell(spec *Spec) (int, error) {
	leave, err := joinCgroup(spec)
	if err != nil {
		return 0, fmt.Errorf("pids cgroup: %w", err)
	}
	defer leave()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("no_new_privs: %w", err)
	}
	if spec.Landlock != nil {
		if err := applyLandlock(spec.Landlock); err != nil {
			return 0, fmt.Errorf("landlock: %w", err)
		}
	}
	if spec.Seccomp {
		if err := applySeccomp(); err != nil {
			return 0, fmt.Errorf("seccomp: %w", err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return 0, fmt.Errorf("capabilities: %w", err)
	}
	script := rlimitPreamble(spec.Shell, spec.Limits, spec.NPROC) + spec.Command
	pid, err := syscall.ForkExec(spec.Shell, []string{spec.Shell, "-c", script}, &syscall.ProcAttr{
		Dir:   spec.Dir,
		Env:   spec.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, fmt.Errorf("starting %s: %w", spec.Shell, err)
	}
	return pid, nil
}

// joinCgroup moves the calling thread (only it: cgroup v1 places threads)
// into the command's pids cgroup, so that the shell is born there, and
// returns the function that moves it back. The way back is opened now,
// before Landlock closes /sys to writes.
func joinCgroup(spec *Spec) (leave func(), err error) {
	if spec.Cgroup == "" {
		return func() {}, nil
	}
	home, err := os.OpenFile(filepath.Join(spec.CgroupHome, "tasks"), os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	tid := []byte(strconv.Itoa(unix.Gettid()))
	if err := os.WriteFile(filepath.Join(spec.Cgroup, "tasks"), tid, 0); err != nil {
		home.Close()
		return nil, err
	}
	return func() {
		home.Write(tid)
		home.Close()
	}, nil
}

// Secure bits (linux/securebits.h): uid 0 gets no capabilities from
// exec, setuid changes none, and neither can be undone.
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoSetuidFixup           = 1 << 2
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
	linuxCapabilityVersion3       = 0x20080522
)

// dropCapabilities empties the calling thread's capability sets and
// makes sure exec gives none back. It matters when the server runs as
// root: uid 0 keeps full capabilities in the user namespace otherwise.
// An unprivileged server has none to drop.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: linuxCapabilityVersion3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil
	}
	if unix.Getuid() != 0 {
		// An unprivileged server's helper holds CAP_SYS_ADMIN as an
		// ambient capability (for its mounts); exec gives a uid other
		// than 0 nothing else, and no_new_privs keeps setuid and file
		// capabilities from doing so. Securebits and the bounding set
		// would need CAP_SETPCAP, which it does not have.
		if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
			return err
		}
		data = [2]unix.CapUserData{}
		return unix.Capset(&hdr, &data[0])
	}
	bits := secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return err
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return err
		}
	}
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	data = [2]unix.CapUserData{}
	return unix.Capset(&hdr, &data[0])
}

// waitFor reaps children until pid exits and returns its status. Orphans
// that init inherits are reaped on the way.
func waitFor(pid int) Status {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Status{Error: "waiting for the shell: " + err.Error()}
		}
		if got != pid {
			continue
		}
		switch {
		case ws.Exited():
			return Status{Exit: ws.ExitStatus()}
		case ws.Signaled():
			return Status{Exit: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
		}
	}
}

// reapAll kills and reaps every remaining child. With a PID namespace
// the kernel does this when init exits. Without one, init is a child
// subreaper: descendants whose parents die are re-parented to it, so
// killing children until none is left reaches setsid grandchildren too.
func reapAll(pid1 bool) {
	if pid1 {
		return
	}
	for {
		for _, k := range children() {
			unix.Kill(k, unix.SIGKILL)
		}
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, 0, nil); err == unix.ECHILD {
			return
		}
	}
}

// children lists this process's children from /proc.
func children() []int { return childrenOf(os.Getpid()) }
