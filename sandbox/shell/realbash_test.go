package shell

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The real-bash oracle of T21: a line the analysis allows is run with
// bash -c in a fresh workspace (cwd and HOME the workspace, a minimal
// PATH, no stdin, 2 s), and must leave every file of it as it was.

// bashWorkspace makes a fresh workspace holding the files the generated
// lines read: f and VERSION hold payload, README.md a line of text, and
// d/ a directory named by it.
func bashWorkspace(t testing.TB, payload string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "t21-")
	if err != nil {
		t.Fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	files := map[string]string{"f": payload + "\n", "VERSION": payload + "\n", "README.md": "hello\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"src", "d", "d/_" + strings.ReplaceAll(payload, "/", "_")} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fileState is what the oracle compares of a file.
type fileState struct {
	mode fs.FileMode
	size int64
	data string
}

// snapshot records every file under dir.
func snapshot(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{mode: fi.Mode(), size: fi.Size()}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.data = string(b)
		}
		out[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changedFiles lists the paths added, removed or changed between a and b.
func changedFiles(a, b map[string]fileState) []string {
	var out []string
	for p, s := range b {
		if o, ok := a[p]; !ok || o != s {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// runBash runs line with bash -c in dir and returns the files it changed.
func runBash(t testing.TB, bash, dir, line string) []string {
	t.Helper()
	before := snapshot(t, dir)
	runIn(bash, dir, line, []string{"HOME=" + dir, "PATH=/usr/bin:/bin", "LC_ALL=C"}, 2*time.Second)
	return changedFiles(before, snapshot(t, dir))
}

// runIn runs line with bash -c in dir, with env, no stdin and a time
// limit (its process group is killed); it fails or not, only its effects
// count.
func runIn(bash, dir, line string, env []string, limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", line)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	_ = cmd.Run()
}

// lookBash finds bash, which the machine and CI have: its absence fails.
func lookBash(t testing.TB) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("the real-bash check of T21 needs bash: %v", err)
	}
	return bash
}
