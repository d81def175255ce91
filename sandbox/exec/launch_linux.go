package exec

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// The launcher is the first stage of a dedicated helper binary (issue
// 16). Creating a user namespace makes Go fork for real instead of
// vfork (the parent must write the child's uid_map while the child
// waits), and a real fork of the server copies its page tables and
// write-protects its whole address space: ≈ 3 ms of the server's CPU
// per command, plus TLB shootdowns on its other threads. So the server
// vforks the small launcher with no namespaces, and the launcher, a
// process of a few MiB, does the forking clone into the command's
// namespaces and starts init (runInit) there, handing on the spec and
// status pipes and the output.
//
// The launcher stays as init's parent until init exits and then exits
// the way init did, so the server's view is as before: the process it
// started exits when the command's namespace is gone, signals it sends
// reach init (SIGKILL kills the launcher, and init dies of its
// Pdeathsig; the others are forwarded), and without a PID namespace
// init stays in the launcher's process group, which the server kills
// as a whole.
const (
	helperArgLaunch = "agentls-sandbox-launch"
	helperFlagsEnv  = "AGENTLS_SANDBOX_FLAGS" // the clone flags of init, in decimal
)

// launcherEnv is the environment the server starts the launcher with.
func launcherEnv(flags uintptr) []string {
	return []string{helperEnv + "=launch", helperFlagsEnv + "=" + strconv.FormatUint(uint64(flags), 10), "GOMAXPROCS=1"}
}

// initAttr is how init is started in the namespaces flags, by the server
// (the self re-exec) or by the launcher.
func initAttr(flags uintptr, setsid bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: setsid, Pdeathsig: syscall.SIGKILL, Cloneflags: flags}
	if flags&unix.CLONE_NEWUSER != 0 {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		if os.Getuid() != 0 && flags&(unix.CLONE_NEWNS|unix.CLONE_NEWUTS) != 0 {
			// A uid other than 0 loses the namespace's capabilities at
			// exec; init needs CAP_SYS_ADMIN there to mount and set the
			// host name. The shell drops it with the rest.
			attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		}
	}
	return attr
}

// runLauncher is the launcher; it returns only when it cannot start
// init (exit status 125, after telling the server why on the status
// pipe) or init exited normally (its status).
func runLauncher() int {
	flags, err := strconv.ParseUint(os.Getenv(helperFlagsEnv), 10, 64)
	if err != nil {
		return launchFailed("bad clone flags: " + err.Error())
	}
	// Pdeathsig follows the thread that forked init: keep it.
	runtime.LockOSThread()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT)
	// init runs the launcher's own binary; the spec and status pipes stay
	// at fds 3 and 4. Init is not a session leader: it stays in the
	// launcher's group (the server made the launcher one).
	pid, err := syscall.ForkExec("/proc/self/exe", []string{helperArgInit}, &syscall.ProcAttr{
		Env:   []string{helperEnv + "=init", "GOMAXPROCS=1"},
		Files: []uintptr{0, 1, 2, helperSpecFD, helperStatusFD},
		Sys:   initAttr(uintptr(flags), false),
	})
	if err != nil {
		return launchFailed("starting init: " + err.Error())
	}
	// The launcher keeps no copy of the pipes: init's exit alone ends
	// them for the server.
	unix.Close(helperSpecFD)
	unix.Close(helperStatusFD)
	go func() {
		for s := range sigs {
			unix.Kill(pid, s.(syscall.Signal))
		}
	}()
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, 0, nil)
		if err != unix.EINTR {
			break
		}
	}
	if ws.Signaled() {
		// Die the same way, so that the server sees init's signal.
		signal.Reset()
		unix.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// launchFailed reports a launcher failure on the status pipe, as init
// reports its own.
func launchFailed(why string) int {
	st := os.NewFile(helperStatusFD, "status")
	st.WriteString(`{"error":` + strconv.Quote("sandbox launcher: "+why) + "}\n")
	return 125
}
