package exec

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// exitOf turns the helper's wait status into an exit code and signal.
func (h *helperProc) exitOf() (int, string) {
	var ws syscall.WaitStatus
	switch {
	case h.cmd == nil:
		ws = h.zygoteStatus()
	case h.cmd.ProcessState == nil:
		return -1, ""
	default:
		ws, _ = h.cmd.ProcessState.Sys().(syscall.WaitStatus)
	}
	if ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}

// Starting init and watching it, in the server: a [helperProc] is the
// server's handle on one init, started by this process itself (the self
// re-exec, or a helper binary without namespaces) or by the zygote
// (zygote_client_linux.go).

// helperProc is a started helper: started by this process (cmd), or by
// the zygote (cmd nil; its exit comes as zexit).
type helperProc struct {
	pid     int
	cmd     *osexec.Cmd
	status  *os.File      // read end of the helper's status pipe
	exited  chan struct{} // closed when the helper has exited; not reaped before reap
	release chan struct{}
	done    chan error // cmd.Wait's result

	zyg   *zygote
	pidfd int // the zygote's init, for signals; -1 without
	zexit child.ZygoteMsg
	zerr  error // the zygote died
}

// reap collects the exited helper and returns why it died, if that is
// not its own exit: cmd.Wait's error, or the zygote's.
func (h *helperProc) reap() error {
	if h.cmd == nil {
		h.zyg.reapInit(h.pid)
		if h.pidfd >= 0 {
			unix.Close(h.pidfd)
		}
		if h.zerr != nil {
			return h.zerr
		}
		if code, sig := h.exitOf(); sig != "" || code != 0 {
			return fmt.Errorf("exit status %d %s", code, sig)
		}
		return nil
	}
	close(h.release)
	return <-h.done
}

// kill kills the helper (not its process group).
func (h *helperProc) kill() {
	if h.cmd != nil {
		h.cmd.Process.Kill()
		return
	}
	h.signal(unix.SIGKILL, true)
}

// startHelper starts init from bin in the namespaces flags with the given
// output files (nil: /dev/null) and sends it spec.
func startHelper(bin *helperBin, flags uintptr, stdout, stderr *os.File, spec *child.Spec) (*helperProc, error) {
	h, specW, err := launchHelper(bin, flags, stdout, stderr)
	if err != nil {
		return nil, err
	}
	sendSpec(specW, spec)
	return h, nil
}

// sendSpec hands a started helper its spec; until then it waits, its
// runtime and package init done.
func sendSpec(specW *os.File, spec *child.Spec) {
	go func() {
		json.NewEncoder(specW).Encode(spec) // fails only if init died, which Wait reports
		specW.Close()
	}()
}

// launchHelper starts init from bin (nil: this program) in the
// namespaces flags with the given output files (nil: /dev/null); it waits
// for its spec on the returned pipe.
func launchHelper(bin *helperBin, flags uintptr, stdout, stderr *os.File) (*helperProc, *os.File, error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, nil, err
	}
	h := &helperProc{status: statusR, exited: make(chan struct{}), pidfd: -1}
	if bin != nil && flags != 0 {
		// A dedicated helper's inits are forked by its zygote, so that
		// this process never forks for real (see zygote).
		err = bin.launch(flags, specR, statusW, stdout, stderr, h)
	} else {
		err = h.start(bin, flags, specR, statusW, stdout, stderr)
	}
	specR.Close()
	statusW.Close()
	if err != nil {
		specW.Close()
		statusR.Close()
		return nil, nil, err
	}
	return h, specW, nil
}

// start starts init from bin (nil: this program) itself, as h.cmd.
func (h *helperProc) start(bin *helperBin, flags uintptr, specR, statusW, stdout, stderr *os.File) error {
	cmd := &osexec.Cmd{
		Path:        bin.execPath(),
		Args:        []string{child.ArgInit},
		Env:         child.Env("init"),
		ExtraFiles:  bin.extraFiles(specR, statusW),
		SysProcAttr: child.InitAttr(flags),
	}
	if stdout != nil {
		cmd.Stdout, cmd.Stderr = stdout, stderr
	}
	h.cmd, h.release, h.done = cmd, make(chan struct{}), make(chan error, 1)
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that started the child exits:
		// keep this goroutine on its thread until the child is gone.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		h.pid = cmd.Process.Pid
		started <- nil
		// Wait without reaping: until reap, the zombie keeps the PID and
		// the process group ID from being reused.
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		close(h.exited)
		<-h.release
		h.done <- cmd.Wait()
	}()
	return <-started
}

// readStatus reads the helper's reports, calling started (if not nil)
// when the shell runs, and returns the final one when the helper exits.
func (h *helperProc) readStatus(started func()) (child.Status, error) {
	defer h.status.Close()
	dec := json.NewDecoder(h.status)
	for {
		var st child.Status
		if err := dec.Decode(&st); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF // the helper died before its report
			}
			return st, err
		}
		if !st.Started {
			return st, nil
		}
		if started != nil {
			started()
			started = nil
		}
	}
}

// signal stops the command. With a PID namespace init gets the signal
// through its pidfd (no PID reuse race) and forwards SIGTERM to the whole
// namespace; SIGKILL of init tears the namespace down. Without one, the
// process group gets it.
func (h *helperProc) signal(sig syscall.Signal, pidns bool) {
	switch {
	case !pidns:
		unix.Kill(-h.pid, sig)
	case h.cmd != nil:
		h.cmd.Process.Signal(sig)
	case h.pidfd >= 0:
		unix.PidfdSendSignal(h.pidfd, sig, nil, 0)
	default:
		unix.Kill(h.pid, sig) // unreaped by the zygote: the PID is still init's
	}
}
