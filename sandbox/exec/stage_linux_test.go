package exec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newStage makes a stage for tests, outside ws.
func newStage(t *testing.T) *Overlay {
	t.Helper()
	d := t.TempDir()
	o := &Overlay{Upper: filepath.Join(d, "upper"), Work: filepath.Join(d, "work")}
	for _, p := range []string{o.Upper, o.Work} {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { removeTree(d) })
	return o
}

// S9: a staged command sees its own writes; the workspace sees none of
// them; they are in the stage's upper layer; and writing below and at the
// top level, which the unstaged rule refuses, works.
func TestStaged_S9_WritesGoToTheStage(t *testing.T) {
	if !testRunner.Layers().Has(LayerStaging) {
		t.Fatalf("staging is missing here: %s", testRunner.Layers().Missing[LayerStaging])
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("old\n"), 0o644)
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	st := newStage(t)
	res, err := testRunner.Run(context.Background(), &Spec{Dir: ws, Stage: st,
		Command: `echo new > a.txt && echo lock > Cargo.lock && mkdir -p bin && echo x > bin/app && echo evil > .git/hooks/pre-commit && cat a.txt`})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !res.Staged {
		t.Fatalf("exit %d staged %v: %s %s", res.ExitCode, res.Staged, res.Stdout, res.Stderr)
	}
	if res.Stdout != "new\n" {
		t.Errorf("the command did not see its own write: %q", res.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "old\n" {
		t.Errorf("the workspace changed: %q", b)
	}
	for _, p := range []string{"Cargo.lock", "bin/app", ".git/hooks/pre-commit"} {
		if _, err := os.Stat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s reached the workspace", p)
		}
		if _, err := os.Stat(filepath.Join(st.Upper, p)); err != nil {
			t.Errorf("%s is not in the stage: %v", p, err)
		}
	}
}

// S11: a staged command's Go build cache reads the user's (warm) and
// writes its own layer; what it adds moves into the workspace's cache,
// never into the user's.
func TestStaged_S11_WarmGoCache(t *testing.T) {
	user := t.TempDir()
	t.Setenv("GOCACHE", user)
	os.MkdirAll(filepath.Join(user, "ab"), 0o755)
	os.WriteFile(filepath.Join(user, "ab", "entry-d"), []byte("user's entry"), 0o644)
	ws, cache := t.TempDir(), t.TempDir()
	res, err := testRunner.Run(context.Background(), &Spec{Dir: ws, Stage: newStage(t), CacheDir: cache, WarmGoCache: true,
		Command: `cat "$GOCACHE/ab/entry-d" && mkdir -p "$GOCACHE/cd" && echo new > "$GOCACHE/cd/new-d" && echo poison > "$GOCACHE/ab/entry-d"`})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	if res.Stdout != "user's entry" {
		t.Errorf("the user's cache was not visible: %q", res.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(user, "ab", "entry-d")); string(b) != "user's entry" {
		t.Errorf("the user's cache was written: %q", b)
	}
	if _, err := os.Stat(filepath.Join(user, "cd")); err == nil {
		t.Error("a new entry reached the user's cache")
	}
	ws2 := goCacheDir(cache, "", ws)
	if b, _ := os.ReadFile(filepath.Join(ws2, "cd", "new-d")); string(b) != "new\n" {
		t.Errorf("the new entry is not in the workspace's cache: %q", b)
	}
	runs, _ := os.ReadDir(ws2 + ".runs")
	if len(runs) != 0 {
		t.Errorf("the command's cache layer was left behind: %d", len(runs))
	}
}

// S11: a staged command's disk budget counts what its stage holds, so
// processes the kernel reaps without adding up their writes (a parent
// that ignores SIGCHLD) cannot write past it: issue 21 measured 3.2 GB
// past the 2 GiB budget that way.
func TestStaged_S11_DiskBudgetCountsTheStage(t *testing.T) {
	const n = 16 << 20
	ws := t.TempDir()
	r, err := testRunner.Run(context.Background(), &Spec{Dir: ws, Stage: newStage(t), Timeout: time.Minute,
		Limits: Limits{DiskBytes: n, FileSizeBytes: 4 * n},
		// perl sets SIGCHLD to SIG_IGN for real (bash's trap keeps its own
		// handler): the kernel reaps the writers and counts them nowhere.
		Command: `perl -e '$SIG{CHLD}="IGNORE"; for my $i (1..40) { if (!fork) { open my $f, ">", "f$i"; print $f "\0" x 1048576; close $f; exit } select(undef,undef,undef,0.12) } sleep 1; print "finished\n"'`})
	if err != nil {
		t.Fatal(err)
	}
	if !r.DiskExceeded || strings.Contains(r.Stdout, "finished") {
		t.Errorf("not stopped: %+v", r)
	}
}

// S9: a staged command's temp dir and build cache never lie beneath the
// overlay, even when the workspace holds the user's temp and cache
// directories (a workspace opened at $HOME): their writes are not the
// command's changes.
func TestStaged_S9_TempAndCacheOutsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("TMPDIR", filepath.Join(ws, ".tmp"))
	os.Mkdir(filepath.Join(ws, ".tmp"), 0o700)
	st := newStage(t)
	res, err := testRunner.Run(context.Background(), &Spec{Dir: ws, Stage: st, CacheDir: filepath.Join(ws, ".cache"),
		Command: `echo t > "$TMPDIR/t" && mkdir -p "$GOCACHE/x" && echo c > "$GOCACHE/x/c" && echo w > w`})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	entries, _ := os.ReadDir(st.Upper)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "w" {
		t.Errorf("the stage holds %v, want only the workspace's w", names)
	}
}

// S9: a stage that cannot be overlaid (here its upper and work
// directories lie on different file systems) is a fallback, not a
// failure: the command runs unstaged, with the stricter protection, and
// the result says why.
func TestStaged_S9_UnmountableStageFallsBack(t *testing.T) {
	ws := t.TempDir()
	shm, err := os.MkdirTemp("/dev/shm", "agentls-work-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shm)
	st := newStage(t)
	st.Work = shm
	res, err := testRunner.Run(context.Background(), &Spec{Dir: ws, Stage: st, Command: "echo x > sub.txt; echo ran"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Staged || res.StageError == "" || res.Stdout != "ran\n" {
		t.Errorf("staged %v, stage error %q, stdout %q", res.Staged, res.StageError, res.Stdout)
	}
}
