package child

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The zygote is a long-lived process of a dedicated helper binary that
// starts each command's init (issue 16). Creating a user namespace
// makes Go fork for real instead of vfork (the parent must write the
// child's uid_map while the child waits), and a real fork of the server
// copies its page tables and write-protects its whole address space: ≈ 3
// ms of the server's CPU per command, and TLB shootdowns on its other
// threads. So the server vforks the zygote once, with no namespaces, and
// the zygote, a process of a few MiB, does the forking clone into each
// command's namespaces and execs init (runInit) there.
//
// A fresh init per command is kept on purpose: the PID, mount, network
// and UTS namespaces, the fresh /proc (procfs shows the PID namespace of
// whoever mounts it), Landlock, seccomp and the rlimits are all made for
// that one command and die with it, so nothing carries over between
// commands. The zygote itself runs nothing but inits and holds no
// restriction; nothing sandboxed can reach it (another PID namespace, no
// ptrace, no unix sockets).
//
// Everything in this file runs in the zygote process; the server's end
// of the protocol (protocol_linux.go) is zygote_client_linux.go.

// cldExited is the si_code of a SIGCHLD for an exit (CLD_EXITED).
const cldExited = 1

// runZygote is the zygote's main loop.
func runZygote() int {
	// Every init's Pdeathsig follows this thread: it forks them all and
	// lives as long as the zygote.
	runtime.LockOSThread()
	// Plain blocking syscalls: the net package would link the C library
	// into the helper (its resolver), and a dynamic helper pays the
	// dynamic loader at every start.
	if err := unix.SetNonblock(zygoteSockFD, false); err != nil {
		return 2
	}
	uc := zygoteSockFD
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(uc, buf, oob, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			// The server is gone or done: end every init still here and
			// reap them all, so that their CPU time is counted in ours.
			endInits()
			return 0
		}
		fds := receivedFDs(oob[:oobn])
		var m ZygoteMsg
		if err := json.Unmarshal(buf[:n], &m); err != nil {
			closeAll(fds)
			continue
		}
		switch m.Op {
		case "start":
			pid, err := zygoteStart(&m, fds)
			closeAll(fds)
			reply := ZygoteMsg{ID: m.ID, PID: pid}
			if err != nil {
				reply = ZygoteMsg{ID: m.ID, Error: err.Error()}
			}
			send(uc, &reply)
			if err == nil {
				go watchInit(uc, pid)
			}
		case "reap":
			closeAll(fds)
			var ws unix.WaitStatus
			for {
				if _, err := unix.Wait4(m.PID, &ws, 0, nil); err != unix.EINTR {
					break
				}
			}
		default:
			closeAll(fds)
		}
	}
}

// endInits kills and reaps the zygote's children.
func endInits() {
	for _, pid := range childPIDs() {
		unix.Kill(pid, unix.SIGKILL)
	}
	for {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, 0, nil); err == unix.ECHILD || (err != nil && err != unix.EINTR) {
			return
		}
	}
}

// childPIDs lists this process's children.
func childPIDs() []int {
	var pids []int
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		data, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// zygoteStart forks and execs init with the received pipes.
func zygoteStart(m *ZygoteMsg, fds []int) (int, error) {
	want := 2
	if m.Output {
		want = 4
	}
	if len(fds) != want {
		return 0, fmt.Errorf("got %d descriptors, want %d", len(fds), want)
	}
	out, errOut := uintptr(zygoteNullFD), uintptr(zygoteNullFD)
	if m.Output {
		out, errOut = uintptr(fds[2]), uintptr(fds[3])
	}
	return syscall.ForkExec("/proc/self/exe", []string{ArgInit}, &syscall.ProcAttr{
		Env:   Env("init"),
		Files: []uintptr{zygoteNullFD, out, errOut, uintptr(fds[0]), uintptr(fds[1])},
		Sys:   InitAttr(uintptr(m.Flags)),
	})
}

// watchInit tells the server when init exits, leaving it unreaped.
func watchInit(uc int, pid int) {
	var info unix.Siginfo
	for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
	}
	m := ZygoteMsg{Exited: pid}
	// siginfo_t for SIGCHLD: si_pid, si_uid, then si_status (the exit
	// code, or the signal for CLD_KILLED and CLD_DUMPED).
	status := *(*int32)(unsafe.Add(unsafe.Pointer(&info), 16+8))
	switch info.Code {
	case cldExited:
		m.Code = int(status)
	default:
		m.Signal = int(status)
	}
	send(uc, &m)
}

func send(uc int, m *ZygoteMsg) error {
	data, _ := json.Marshal(m)
	for {
		if err := unix.Sendmsg(uc, data, nil, nil, 0); err != unix.EINTR {
			return err
		}
	}
}

// receivedFDs returns the descriptors passed in oob.
func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, msg := range msgs {
		if got, err := unix.ParseUnixRights(&msg); err == nil {
			fds = append(fds, got...)
		}
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
