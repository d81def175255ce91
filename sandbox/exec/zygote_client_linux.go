package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// The server's end of the zygote's protocol (protocol_linux.go): it
// starts the zygote, asks it for inits, and dispatches what it reports.
// Everything in this file runs in the server; the zygote's own loop is
// zygote_main_linux.go.

// zygote is the server's side of a running zygote.
type zygote struct {
	cmd  *osexec.Cmd
	conn *os.File // our end of the socketpair, non-blocking (the poller's)

	mu      sync.Mutex // guards the fields below
	nextID  uint64
	starts  map[uint64]*pendingStart // pending starts, by id
	procs   map[int]*helperProc      // started inits not yet exited, by pid
	reading bool                     // a reader goroutine runs
	dead    error                    // the zygote is gone: why

	ended sync.Once // end's work
}

// startZygote starts bin's zygote.
func startZygote(bin *helperBin) (*zygote, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote")
	defer theirs.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		ours.Close()
		return nil, err
	}
	defer null.Close()
	cmd := &osexec.Cmd{
		Path: bin.execPath(),
		Args: []string{child.ArgZygote},
		Env:  child.Env("zygote"),
		// fd 3 the socket, 4 /dev/null, 5 the binary (execPath).
		ExtraFiles: []*os.File{theirs, null, bin.file},
		// No Pdeathsig: it would follow the starting thread. The zygote
		// exits when the socket's other end closes, which the kernel does
		// when this process exits however it exits.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		ours.Close()
		return nil, err
	}
	return &zygote{cmd: cmd, conn: ours, starts: map[uint64]*pendingStart{}, procs: map[int]*helperProc{}}, nil
}

// pendingStart is a start waiting for its reply.
type pendingStart struct {
	h     *helperProc
	reply chan child.ZygoteMsg
}

// errZygoteGone is why launches through a zygote that died fail.
var errZygoteGone = errors.New("the sandbox zygote exited")

// launch has the zygote start init in the namespaces flags with the spec
// and status pipes and the output (nil: /dev/null), and returns it with
// h's pid set; its exit is reported through h.exited.
func (z *zygote) launch(flags uintptr, specR, statusW, stdout, stderr *os.File, h *helperProc) error {
	files := []*os.File{specR, statusW}
	if stdout != nil {
		files = append(files, stdout, stderr)
	}
	rights := make([]int, len(files))
	for i, f := range files {
		rights[i] = int(f.Fd())
	}
	z.mu.Lock()
	if z.dead != nil {
		z.mu.Unlock()
		return z.dead
	}
	z.nextID++
	id := z.nextID
	reply := make(chan child.ZygoteMsg, 1)
	z.starts[id] = &pendingStart{h: h, reply: reply}
	if !z.reading {
		z.reading = true
		go z.read()
	}
	z.mu.Unlock()
	data, _ := json.Marshal(&child.ZygoteMsg{Op: "start", ID: id, Flags: uint64(flags), Output: stdout != nil})
	err := z.sendmsg(data, unix.UnixRights(rights...))
	runtime.KeepAlive(files)
	if err != nil {
		z.fail(fmt.Errorf("%w: %v", errZygoteGone, err))
	}
	m := <-reply
	if m.Error != "" {
		return errors.New(m.Error)
	}
	return nil
}

// read dispatches the zygote's messages while any start or init is
// pending, and then ends (so an idle runner has no goroutine).
func (z *zygote) read() {
	buf := make([]byte, 4096)
	for {
		n, err := z.recvmsg(buf)
		if err != nil || n == 0 {
			if err == nil {
				err = errors.New("end of stream")
			}
			z.fail(fmt.Errorf("%w: %v", errZygoteGone, err))
			return
		}
		var m child.ZygoteMsg
		if json.Unmarshal(buf[:n], &m) != nil {
			continue
		}
		z.mu.Lock()
		var h *helperProc
		switch {
		case m.Exited != 0:
			h = z.procs[m.Exited]
			delete(z.procs, m.Exited)
		case m.ID != 0:
			if st := z.starts[m.ID]; st != nil {
				delete(z.starts, m.ID)
				if m.Error == "" {
					// Registered before the next read: its exit can
					// come right after.
					st.h.startedBy(z, m.PID)
					z.procs[m.PID] = st.h
				}
				st.reply <- m
			}
		}
		idle := len(z.starts) == 0 && len(z.procs) == 0
		if idle {
			z.reading = false
		}
		z.mu.Unlock()
		if h != nil {
			h.zygoteExited(m, nil)
		}
		if idle {
			return
		}
	}
}

// fail marks the zygote dead: pending starts fail, and the inits it had
// started are gone too (their Pdeathsig).
func (z *zygote) fail(why error) {
	z.mu.Lock()
	if z.dead == nil {
		z.dead = why
	}
	starts, procs := z.starts, z.procs
	z.starts, z.procs = map[uint64]*pendingStart{}, map[int]*helperProc{}
	z.reading = false
	z.mu.Unlock()
	for _, st := range starts {
		st.reply <- child.ZygoteMsg{Error: why.Error()}
	}
	for pid, h := range procs {
		h.zygoteExited(child.ZygoteMsg{Exited: pid, Signal: int(unix.SIGKILL)}, why)
	}
	z.end(true)
}

// end closes our end of the socket, which makes the zygote reap its inits
// and exit, and reaps it; kill does not wait for that. Once: the reader
// and a failed send may both give up on a zygote.
func (z *zygote) end(kill bool) {
	z.ended.Do(func() {
		z.conn.Close()
		if kill {
			z.cmd.Process.Kill()
		}
		exited := make(chan struct{})
		go func() { z.cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(time.Second):
			z.cmd.Process.Kill()
			<-exited
		}
	})
}

// sendmsg sends one packet through the poller.
func (z *zygote) sendmsg(data, oob []byte) error {
	rc, err := z.conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Write(func(fd uintptr) bool {
		serr = unix.Sendmsg(int(fd), data, oob, nil, 0)
		return serr != unix.EAGAIN
	}); err != nil {
		return err
	}
	return serr
}

// recvmsg reads one packet through the poller; closing conn ends it.
func (z *zygote) recvmsg(buf []byte) (int, error) {
	rc, err := z.conn.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		n, _, _, _, rerr = unix.Recvmsg(int(fd), buf, nil, 0)
		return rerr != unix.EAGAIN
	}); err != nil {
		return 0, err
	}
	return n, rerr
}

// reapInit lets the zygote reap init.
func (z *zygote) reapInit(pid int) {
	data, _ := json.Marshal(&child.ZygoteMsg{Op: "reap", PID: pid})
	z.sendmsg(data, nil)
}

// close ends the zygote when nothing runs in it; with inits running it
// stays (they need it) until the process exits.
func (z *zygote) close() bool {
	z.mu.Lock()
	if len(z.starts) > 0 || len(z.procs) > 0 || z.dead != nil {
		z.mu.Unlock()
		return false
	}
	z.dead = errZygoteGone // no launch gets in from here on
	z.mu.Unlock()
	z.end(false) // it reaps what it has and exits
	return true
}

// startedBy records that z started h's init as pid. The zygote keeps
// init unreaped until told: opening its pidfd now has no PID reuse race.
func (h *helperProc) startedBy(z *zygote, pid int) {
	h.zyg, h.pid = z, pid
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		h.pidfd = fd
	}
}

// zygoteExited records init's exit as the zygote reported it.
func (h *helperProc) zygoteExited(m child.ZygoteMsg, err error) {
	h.zexit, h.zerr = m, err
	close(h.exited)
}

// zygoteStatus is init's exit as a wait status, for exitOf.
func (h *helperProc) zygoteStatus() syscall.WaitStatus {
	if h.zexit.Signal != 0 {
		return syscall.WaitStatus(h.zexit.Signal & 0x7f)
	}
	return syscall.WaitStatus((h.zexit.Code & 0xff) << 8)
}

// launch starts init through b's zygote, starting it (again) when
// needed.
func (b *helperBin) launch(flags uintptr, specR, statusW, stdout, stderr *os.File, h *helperProc) error {
	b.mu.Lock()
	z := b.zyg
	if z == nil || z.gone() {
		var err error
		if z, err = startZygote(b); err != nil {
			b.mu.Unlock()
			return fmt.Errorf("starting the sandbox zygote: %w", err)
		}
		b.zyg = z
	}
	b.mu.Unlock()
	return z.launch(flags, specR, statusW, stdout, stderr, h)
}

// stopZygote ends b's zygote if nothing runs in it ([Runner.Close]).
func (b *helperBin) stopZygote() {
	if b == nil {
		return
	}
	b.mu.Lock()
	z := b.zyg
	b.mu.Unlock()
	if z != nil && z.close() {
		b.mu.Lock()
		if b.zyg == z {
			b.zyg = nil
		}
		b.mu.Unlock()
	}
}

func (z *zygote) gone() bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.dead != nil
}
