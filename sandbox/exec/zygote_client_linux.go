package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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
// Protocol, on a SOCK_SEQPACKET socketpair (fd 3 in the zygote), one JSON
// message per packet:
//
//	server → zygote  {"op":"start","id":N,"flags":F} with the spec and
//	                 status pipes, and stdout and stderr unless /dev/null,
//	                 as SCM_RIGHTS
//	zygote → server  {"id":N,"pid":P} or {"id":N,"error":"…"}
//	zygote → server  {"exited":P,"code":C,"signal":S} once init exits
//	                 (not reaped yet: its PID and process group ID stay
//	                 taken)
//	server → zygote  {"op":"reap","pid":P}
//
// The zygote exits when the server's end closes (the server exited, or
// [Runner.Close]); every init it started dies then of its Pdeathsig.
const (
	helperArgZygote = "agentls-sandbox-zygote"
	zygoteComm      = "agentls-zygote" // its name in ps
	zygoteSockFD    = 3
	zygoteNullFD    = 4 // /dev/null, init's stdin and, without one given, its output
	cldExited       = 1 // si_code of a SIGCHLD for an exit (CLD_EXITED)
)

// zygoteMsg is one message either way.
type zygoteMsg struct {
	Op     string `json:"op,omitempty"`
	ID     uint64 `json:"id,omitempty"`
	Flags  uint64 `json:"flags,omitempty"`
	Output bool   `json:"output,omitempty"` // stdout and stderr were sent
	PID    int    `json:"pid,omitempty"`
	Error  string `json:"error,omitempty"`
	Exited int    `json:"exited,omitempty"`
	Code   int    `json:"code,omitempty"`
	Signal int    `json:"signal,omitempty"`
}

// initAttr is how init is started in the namespaces flags, by the server
// (the self re-exec) or by the zygote.
func initAttr(flags uintptr) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: flags}
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
		var m zygoteMsg
		if err := json.Unmarshal(buf[:n], &m); err != nil {
			closeAll(fds)
			continue
		}
		switch m.Op {
		case "start":
			pid, err := zygoteStart(&m, fds)
			closeAll(fds)
			reply := zygoteMsg{ID: m.ID, PID: pid}
			if err != nil {
				reply = zygoteMsg{ID: m.ID, Error: err.Error()}
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
func zygoteStart(m *zygoteMsg, fds []int) (int, error) {
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
	return syscall.ForkExec("/proc/self/exe", []string{helperArgInit}, &syscall.ProcAttr{
		Env:   []string{helperEnv + "=init", "GOMAXPROCS=1"},
		Files: []uintptr{zygoteNullFD, out, errOut, uintptr(fds[0]), uintptr(fds[1])},
		Sys:   initAttr(uintptr(m.Flags)),
	})
}

// watchInit tells the server when init exits, leaving it unreaped.
func watchInit(uc int, pid int) {
	var info unix.Siginfo
	for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
	}
	m := zygoteMsg{Exited: pid}
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

func send(uc int, m *zygoteMsg) error {
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
		Args: []string{helperArgZygote},
		Env:  []string{helperEnv + "=zygote", "GOMAXPROCS=1"},
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
	reply chan zygoteMsg
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
	reply := make(chan zygoteMsg, 1)
	z.starts[id] = &pendingStart{h: h, reply: reply}
	if !z.reading {
		z.reading = true
		go z.read()
	}
	z.mu.Unlock()
	data, _ := json.Marshal(&zygoteMsg{Op: "start", ID: id, Flags: uint64(flags), Output: stdout != nil})
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
		var m zygoteMsg
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
		st.reply <- zygoteMsg{Error: why.Error()}
	}
	for pid, h := range procs {
		h.zygoteExited(zygoteMsg{Exited: pid, Signal: int(unix.SIGKILL)}, why)
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
	data, _ := json.Marshal(&zygoteMsg{Op: "reap", PID: pid})
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
func (h *helperProc) zygoteExited(m zygoteMsg, err error) {
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
