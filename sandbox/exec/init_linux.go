package exec

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper is the small cmd/agentls-sandbox binary ([Options.Helper])
// or a re-execution of the server's own (/proc/self/exe), recognised by
// argv[0] and helperEnv, started by [Runner.Run] in the new namespaces;
// both run this same code. It is the command's init:
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
// programs that use cgo), so nothing restricted may reach into them: seccomp refuses ptrace, process_vm_* and pidfd_getfd; Landlock
// keeps /proc read-only (no /proc/PID/mem writes); and init is not
// dumpable while the shell has no capabilities, which blocks ptrace
// checks even where seccomp is missing.
//
// The spec travels as JSON on an inherited pipe (fd 3), never in argv or
// the environment; the status comes back on a second pipe (fd 4).
const (
	helperEnv      = "AGENTLS_SANDBOX_EXEC"
	helperArgInit  = "agentls-sandbox-init"
	helperSpecFD   = 3
	helperStatusFD = 4
	helperComm     = "agentls-sandbox" // the helper's process name
)

// helperSpec is what Run sends to the helper.
type helperSpec struct {
	Probe    bool           `json:"probe,omitempty"`
	Shell    string         `json:"shell"`
	Command  string         `json:"command"`
	Dir      string         `json:"dir"`
	Env      []string       `json:"env"`
	Limits   Limits         `json:"limits"`
	NPROC    bool           `json:"nproc,omitempty"` // RLIMIT_NPROC counts per user namespace
	Landlock *landlockRules `json:"landlock,omitempty"`
	Seccomp  bool           `json:"seccomp,omitempty"`
	// Cgroup is the command's pids cgroup (v1) and CgroupHome the one
	// the server is in; init's forking thread visits the first.
	Cgroup     string `json:"cgroup,omitempty"`
	CgroupHome string `json:"cgroupHome,omitempty"`
	// Mounts is the work in the command's own mount namespace; nil
	// without one.
	Mounts *mountSpec `json:"mounts,omitempty"`
	// Hostname is set in the command's own UTS namespace; "" without one.
	Hostname string `json:"hostname,omitempty"`
	// DiskWatch enforces Limits.DiskBytes (see watchDisk).
	DiskWatch bool `json:"diskWatch,omitempty"`
	// DiskDirs are directories whose contents count against
	// Limits.DiskBytes besides what the processes write: the stage's
	// upper layer and the private temp dir (S11).
	DiskDirs []string `json:"diskDirs,omitempty"`
}

// helperStatus is the helper's report to Run: one with Started once the
// shell runs (signals reach it from then on), then the final one.
type helperStatus struct {
	Started bool `json:"started,omitempty"`
	PID1    bool `json:"pid1,omitempty"` // probe: the helper is PID 1
	// Version is the probe's answer: the helper's [helperVersion].
	Version string `json:"version,omitempty"`
	Exit    int    `json:"exit"`
	Signal  int    `json:"signal,omitempty"`
	Disk    bool   `json:"disk,omitempty"`  // killed for writing past Limits.DiskBytes
	Error   string `json:"error,omitempty"` // setting up failed; nothing ran
	// The probe's trials of the mount namespace, the fresh /proc and the
	// host name: why each failed, "" when it worked.
	MountErr string `json:"mountErr,omitempty"`
	ProcErr  string `json:"procErr,omitempty"`
	UTSErr   string `json:"utsErr,omitempty"`
	StageErr string `json:"stageErr,omitempty"`
}

// MaybeRunHelper must be the first call in the program's main (and in
// TestMain of tests that call [Runner.Run]): when the process is the sandbox
// helper it does the helper's work and exits; otherwise it returns at
// once. Package init functions run before it in the helper too, so they
// must not have side effects.
func MaybeRunHelper() {
	helperHooked.Store(true)
	if len(os.Args) > 0 && os.Args[0] == helperArgZygote && os.Getenv(helperEnv) == "zygote" {
		nameSelf(zygoteComm)
		os.Exit(runZygote())
	}
	if len(os.Args) > 0 && os.Args[0] == helperArgInit && os.Getenv(helperEnv) == "init" {
		nameSelf(helperComm)
		os.Exit(runInit())
	}
}

// nameSelf sets the process name ps and top show: started as
// /proc/self/fd/N or /proc/self/exe, the helper would be "N" or "exe".
// Names are cut to 15 bytes.
func nameSelf(name string) {
	b := []byte(name + "\x00")
	unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
}

// readSpec reads the JSON spec from fd 3 and closes it.
func readSpec() (*helperSpec, error) {
	f := os.NewFile(helperSpecFD, "spec")
	if f == nil {
		return nil, errors.New("no spec pipe")
	}
	defer f.Close()
	var s helperSpec
	if err := json.NewDecoder(f).Decode(&s); err != nil {
		return nil, fmt.Errorf("reading the spec: %w", err)
	}
	return &s, nil
}

// runInit is the helper; see the comment above.
func runInit() int {
	fdErr := closeOnExecFrom(helperSpecFD)
	status := os.NewFile(helperStatusFD, "status")
	unix.CloseOnExec(helperStatusFD)
	report := func(st helperStatus) int {
		json.NewEncoder(status).Encode(st)
		return 0
	}
	spec, err := readSpec()
	if err != nil {
		return report(helperStatus{Error: err.Error()})
	}
	if fdErr != nil {
		return report(helperStatus{Error: "closing inherited descriptors: " + fdErr.Error()})
	}
	pid1 := os.Getpid() == 1
	if spec.Probe {
		st := helperStatus{PID1: pid1, Version: helperVersion()}
		st.MountErr, st.ProcErr, st.UTSErr, st.StageErr = probeMounts(spec.Mounts, spec.Hostname)
		return report(st)
	}
	if spec.Mounts != nil {
		if err := setupMounts(spec.Mounts); err != nil {
			return report(helperStatus{Error: err.Error()})
		}
	}
	if spec.Hostname != "" {
		if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
			return report(helperStatus{Error: "setting the host name: " + err.Error()})
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
		return report(helperStatus{Error: err.Error()})
	}
	report(helperStatus{Started: true})
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
func startShell(spec *helperSpec) (int, error) {
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
func joinCgroup(spec *helperSpec) (leave func(), err error) {
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
func waitFor(pid int) helperStatus {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return helperStatus{Error: "waiting for the shell: " + err.Error()}
		}
		if got != pid {
			continue
		}
		switch {
		case ws.Exited():
			return helperStatus{Exit: ws.ExitStatus()}
		case ws.Signaled():
			return helperStatus{Exit: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
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

// threadCount returns this process's number of threads.
func threadCount() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 8
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Threads:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return 8
}
