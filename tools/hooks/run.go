package hooks

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// maxOutput bounds what is kept of a hook's stdout and of its stderr.
const maxOutput = 64 << 10

// outcome is how one hook process ended.
type outcome struct {
	exit     int // -1 when it did not exit by itself (timeout, signal, no start)
	stdout   []byte
	stderr   []byte
	timedOut bool
	missing  bool // the command could not be found or executed
	err      error
}

// runCommand runs one hook as `/bin/sh -c CMD` in dir, outside the
// sandbox, with env and input on stdin, in its own process group. At the
// timeout, or when ctx is done, the whole group is killed, and the wait
// for output it left behind (a background child holding the pipe) is
// bounded too.
func runCommand(ctx context.Context, h *hook, dir string, env []string, input []byte) outcome {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", h.cmd)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // children it left running
	}
	o := outcome{exit: -1, stdout: stdout.b, stderr: stderr.b, err: err}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		o.exit = cmd.ProcessState.ExitCode()
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		o.timedOut, o.exit = true, -1
	case errors.As(err, &ee):
	case err != nil && o.exit == -1:
		o.missing = true // /bin/sh itself did not start
	}
	// sh reports a command it cannot find as 127 and one it cannot run as 126.
	if o.exit == 126 || o.exit == 127 {
		o.missing = true
	}
	return o
}

// capped keeps the first maxOutput bytes written to it and drops the rest.
type capped struct{ b []byte }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
