package exec

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// zygotePID is the pid of r's running zygote, 0 without one.
func zygotePID(r *Runner) int {
	b := r.sys.bin
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.zyg == nil || b.zyg.gone() {
		return 0
	}
	return b.zyg.cmd.Process.Pid
}

// parentOf reads the parent pid of pid from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid …; comm may hold spaces: cut after its ')'.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// TestZygote_I16_ServerNeverForksInit: with the helper binary every
// command's init is the zygote's child, not this process's (this process
// only vforks the zygote, once), and one zygote serves every command.
func TestZygote_I16_ServerNeverForksInit(t *testing.T) {
	needSandboxLayers(t, LayerUserNamespace, LayerPIDNamespace)
	r := New(&Options{Helper: testHelper})
	defer r.Close()
	ws := execWorkspace(t)
	mustRun(t, r)
	z := zygotePID(r)
	if z == 0 {
		t.Fatal("no zygote after a command")
	}
	// The zygote names itself once its runtime is up; by now it has
	// started an init.
	if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(z) + "/comm"); string(comm) != zygoteComm+"\n" {
		t.Errorf("the zygote is called %q in ps, want %q", comm, zygoteComm)
	}
	if p := parentOf(t, z); p != os.Getpid() {
		t.Errorf("the zygote's parent is %d, want this process %d", p, os.Getpid())
	}
	// A command that waits, so its init can be looked at.
	done := make(chan *Result, 1)
	go func() { done <- runWith(t, r, &Spec{Command: "sleep 2; echo done", Dir: ws}) }()
	var init int
	for deadline := time.Now().Add(10 * time.Second); init == 0 && time.Now().Before(deadline); {
		r.sys.bin.zyg.mu.Lock()
		for pid := range r.sys.bin.zyg.procs {
			init = pid
		}
		r.sys.bin.zyg.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	if init == 0 {
		t.Fatal("the running command has no init in the zygote")
	}
	if p := parentOf(t, init); p != z {
		t.Errorf("init %d's parent is %d, want the zygote %d", init, p, z)
	}
	if res := <-done; res.Stdout != "done\n" {
		t.Fatalf("sleep; echo: %+v", res)
	}
	mustRun(t, r)
	if got := zygotePID(r); got != z {
		t.Errorf("the zygote changed from %d to %d between commands", z, got)
	}
}

// TestZygote_I16_Concurrent: concurrent commands through one zygote each
// get their own output, exit status and PID namespace.
func TestZygote_I16_Concurrent(t *testing.T) {
	needSandboxLayers(t, LayerUserNamespace, LayerPIDNamespace)
	r := New(&Options{Helper: testHelper})
	defer r.Close()
	ws := execWorkspace(t)
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Run(t.Context(), &Spec{Command: fmt.Sprintf("echo %d $$; exit %d", i, i%3), Dir: ws})
			switch {
			case err != nil:
				errs <- err
			case !ownPIDNamespace(res.Stdout, i):
				errs <- fmt.Errorf("command %d printed %q, want its number and a small pid", i, res.Stdout)
			case res.ExitCode != i%3:
				errs <- fmt.Errorf("command %d exited %d, want %d", i, res.ExitCode, i%3)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestZygote_I16_DiesMidCommand: a zygote killed while a command runs
// ends that command (its init dies of its Pdeathsig) with an error or a
// killed result, never a hang, and the next command gets a new zygote.
func TestZygote_I16_DiesMidCommand(t *testing.T) {
	needSandboxLayers(t, LayerUserNamespace, LayerPIDNamespace)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := New(&Options{Helper: testHelper})
	defer r.Close()
	ws := execWorkspace(t)
	mustRun(t, r)
	z := zygotePID(r)
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		res, err := r.Run(t.Context(), &Spec{Command: "sleep 30", Dir: ws, Timeout: time.Minute})
		done <- outcome{res, err}
	}()
	time.Sleep(300 * time.Millisecond)
	if err := unix.Kill(z, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		if o.err == nil && o.res.ExitCode == 0 {
			t.Errorf("the command survived its zygote: %+v", o.res)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("took %v", time.Since(start))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run hangs after its zygote died")
	}
	mustRun(t, r)
	if got := zygotePID(r); got == z || got == 0 {
		t.Errorf("zygote after the crash: %d (old %d)", got, z)
	}
}

// ownPIDNamespace reports whether out is "i pid" with the pid of a fresh
// PID namespace (a few processes in), not the host's.
func ownPIDNamespace(out string, i int) bool {
	n, pid, ok := strings.Cut(strings.TrimSpace(out), " ")
	p, err := strconv.Atoi(pid)
	return ok && err == nil && n == strconv.Itoa(i) && p > 1 && p < 50
}

// countFDs counts the open descriptors of pid.
func countFDs(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestZygote_I16_NoDescriptorLeak: the pipes handed to the zygote for
// each command are closed on both sides once it ran: after 40 more
// commands neither this process nor the zygote holds more descriptors.
func TestZygote_I16_NoDescriptorLeak(t *testing.T) {
	needSandboxLayers(t, LayerUserNamespace, LayerPIDNamespace)
	r := New(&Options{Helper: testHelper})
	defer r.Close()
	mustRun(t, r)
	z := zygotePID(r)
	ours, theirs := countFDs(t, os.Getpid()), countFDs(t, z)
	for range 40 {
		mustRun(t, r)
	}
	if got := countFDs(t, os.Getpid()); got > ours {
		t.Errorf("this process holds %d descriptors after 40 commands, %d before", got, ours)
	}
	if got := countFDs(t, z); got > theirs {
		t.Errorf("the zygote holds %d descriptors after 40 commands, %d before", got, theirs)
	}
}

// TestZygote_I16_CloseWhileRunning: Close while a command runs leaves the
// command alone (its zygote stays until then) and the command finishes
// with its output.
func TestZygote_I16_CloseWhileRunning(t *testing.T) {
	needSandboxLayers(t, LayerUserNamespace, LayerPIDNamespace)
	r := New(&Options{Helper: testHelper, Prestart: true})
	ws := execWorkspace(t)
	mustRun(t, r)
	done := make(chan *Result, 1)
	go func() { done <- runWith(t, r, &Spec{Command: "sleep 1; echo finished", Dir: ws}) }()
	time.Sleep(200 * time.Millisecond)
	r.Close()
	select {
	case res := <-done:
		if res.Stdout != "finished\n" || res.ExitCode != 0 {
			t.Errorf("the command after Close: %+v", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the command hangs after Close")
	}
	mustRun(t, r) // Run keeps working after Close
}

// TestZygote_A11_Issue26_LostMidCommandKeepsOutput: a zygote lost while a
// command runs ends it with a result that keeps the output so far and
// says what happened, its exit unknown; not "could not start" (issue 26
// item 7a).
func TestZygote_A11_Issue26_LostMidCommandKeepsOutput(t *testing.T) {
	needSandboxLayers(t, LayerUserNamespace, LayerPIDNamespace)
	r := New(&Options{Helper: testHelper})
	defer r.Close()
	ws := execWorkspace(t)
	if err := os.Mkdir(ws+"/out", 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, r)
	z := zygotePID(r)
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.Run(t.Context(), &Spec{
			Command: "echo partial; echo err-partial >&2; touch out/printed; sleep 30",
			Dir:     ws, Timeout: time.Minute,
		})
		done <- outcome{res, err}
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(ws + "/out/printed"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not print within 20s")
		}
	}
	if err := unix.Kill(z, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run hangs after its zygote died")
	}
	if o.err != nil {
		t.Fatalf("Run: %v, want a result with the output so far", o.err)
	}
	want := "partial\n" + helperLostMarker
	if !o.res.HelperLost || o.res.ExitCode != -1 || o.res.Stdout != want || o.res.Stderr != "err-partial\n" {
		t.Errorf("result = %+v\nwant HelperLost, exit -1, stdout %q, stderr %q", o.res, want, "err-partial\n")
	}
}
