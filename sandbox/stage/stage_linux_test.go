package stage

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// staged runs script in ws on a real overlay (unshare, as the sandbox
// mounts it: unprivileged, userxattr) and returns the stage.
func staged(t *testing.T, ws, script string) *Stage {
	t.Helper()
	st, err := New(t.TempDir(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Remove() })
	mnt := "mount -t overlay overlay -o lowerdir=" + ws + ",upperdir=" + st.Upper + ",workdir=" + st.Work + ",userxattr " + ws
	out, err := exec.Command("unshare", "-Urm", "sh", "-ec", mnt+" && cd "+ws+" && "+script).CombinedOutput()
	if err != nil {
		t.Fatalf("overlay run: %v\n%s", err, out)
	}
	return st
}

// tree writes files (path → content; a trailing / makes a directory;
// "->target" a symlink) under a new workspace.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for p, c := range files {
		full := filepath.Join(ws, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		switch {
		case strings.HasSuffix(p, "/"):
			os.MkdirAll(full, 0o755)
		case strings.HasPrefix(c, "->"):
			os.Symlink(c[2:], full)
		default:
			os.WriteFile(full, []byte(c), 0o644)
		}
	}
	return ws
}

func summary(s *Set) []string {
	var out []string
	for _, c := range s.Changes {
		kind := "f"
		switch c.Type {
		case fs.ModeDir:
			kind = "d"
		case fs.ModeSymlink:
			kind = "l"
		}
		out = append(out, c.Op.String()+" "+kind+" "+c.Path)
	}
	sort.Strings(out)
	return out
}

// S9: the change set is what the command did, read from a real overlay:
// additions, modifications, deletions (whiteouts), a replaced directory
// (opaque), a rename (copy and whiteout), a symlink, a chmod; a touch
// and a rewrite with the same bytes are no change.
func TestRead_S9_ChangeSet(t *testing.T) {
	ws := tree(t, map[string]string{"a": "a\n", "same": "s\n", "touched": "t\n", "sub/b": "b\n",
		"dd/q": "q\n", "mv/x": "x\n", "run.sh": "#!/bin/sh\n"})
	st := staged(t, ws, `echo new > c; echo more >> a; echo s > same; touch touched; rm sub/b; rm -rf dd; mkdir dd; echo z > dd/z;
		mkdir -p n/m; echo f > n/m/f; ln -s a link; mv mv mv2; chmod +x run.sh`)
	set, err := Read(st.Upper, ws, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"added d mv2", "added d n", "added d n/m", "added f c", "added f dd/z", "added f mv2/x", "added f n/m/f", "added l link",
		"changed f a", "changed f run.sh", "deleted d mv", "deleted f dd/q", "deleted f sub/b",
	}
	if got := summary(set); !slices.Equal(got, want) {
		t.Errorf("change set\n got %q\nwant %q", got, want)
	}
}

// S10: every path at any depth is classified; nested repositories, git
// configuration targets, start-up files, hook directories and symlinks
// that lead out or into control paths are held; .agentls is refused.
func TestClassify_S10_EveryDepth(t *testing.T) {
	cases := []struct {
		path, target string
		want         Class
	}{
		{"src/main.go", "", Land},
		{"Cargo.lock", "", Land},
		{"bin/app", "", Land},
		{"vendor/lib/.git/config", "", Hold},
		{"vendor/lib/.git", "", Hold}, // a gitfile
		{"sub/.GIT/hooks/post-checkout", "", Hold},
		{".git/hooks/pre-commit", "", Hold},
		{".githooks/pre-commit", "", Hold},
		{"web/.husky/pre-push", "", Hold},
		{"pkg/.pre-commit-config.yaml", "", Hold},
		{".venv/lib/python3.11/site-packages/evil.pth", "", Hold},
		{".venv/lib/python3.11/site-packages/sitecustomize.py", "", Hold},
		{"lib/usercustomize.py", "", Hold},
		{"deep/a/b/.vscode/tasks.json", "", Hold},
		{"x/.envrc", "", Hold},
		{".gitconfig", "", Hold},            // include.path target (Held below)
		{"hooks-dir/x", "", Hold},           // core.hooksPath target
		{"scripts/audit-hook.sh", "", Hold}, // a hook runs it
		{".agentls/policy.json", "", Refuse},
		{"nested/.agentls/hooks.json", "", Refuse},
		{"docs/notes", "../.git", Hold},
		{"docs/up", "../../etc/passwd", Hold},
		{"docs/abs", "/etc/passwd", Hold},
		{"docs/ok", "../src/main.go", Land},
		{"docs/hook", "../hooks-dir", Hold},
	}
	for _, c := range cases { // one set each: a config change holds its whole set
		ch := &Change{Path: c.path, Op: Add}
		if c.target != "" {
			ch.Type, ch.Target = fs.ModeSymlink, c.target
		}
		set := &Set{Changes: []*Change{ch}}
		set.Classify(&Rules{Held: []string{".gitconfig", "hooks-dir", "scripts/audit-hook.sh"}})
		if ch.Class != c.want {
			t.Errorf("%s (-> %q): class %d (%s), want %d", c.path, c.target, ch.Class, ch.Why, c.want)
		}
	}
}

// S10: git's own data lands after a command the user approved (a
// commit); its configuration and hooks are held even then.
func TestClassify_S10_ApprovedGitCommand(t *testing.T) {
	set := &Set{Changes: []*Change{{Path: ".git/objects/ab/cdef", Op: Add}, {Path: ".git/index", Op: Modify},
		{Path: ".git/refs/heads/main", Op: Modify}, {Path: ".git/hooks/pre-commit", Op: Add}}}
	set.Classify(&Rules{UserApproved: true})
	want := []Class{Land, Land, Land, Hold}
	for i, c := range set.Changes {
		if c.Class != want[i] {
			t.Errorf("%s: class %d, want %d", c.Path, c.Class, want[i])
		}
	}
	set.Classify(&Rules{})
	for _, c := range set.Changes {
		if c.Class != Hold {
			t.Errorf("unapproved %s: class %d, want held", c.Path, c.Class)
		}
	}
}

// S10: a command that deletes DefaultMassDelete tracked files is asked;
// deleting untracked build output is not.
func TestClassify_S10_MassDelete(t *testing.T) {
	files := map[string]string{}
	for i := range DefaultMassDelete {
		files["src/f"+string(rune('a'+i))+".go"] = "package x\n"
		files["out/o"+string(rune('a'+i))] = "o"
	}
	ws := tree(t, files)
	tracked := func(rel string) bool { return strings.HasPrefix(rel, "src/") }
	st := staged(t, ws, "rm -rf out")
	set, _ := Read(st.Upper, ws, time.Now())
	set.Classify(&Rules{Tracked: tracked})
	if len(set.Held()) != 0 {
		t.Errorf("deleting untracked output was held: %v", set.Held()[0].Why)
	}
	st = staged(t, ws, "rm -rf src")
	set, _ = Read(st.Upper, ws, time.Now())
	set.Classify(&Rules{Tracked: tracked})
	if len(set.Held()) != 1 || !strings.Contains(set.Held()[0].Why, "tracked") {
		t.Errorf("deleting %d tracked files was not held: %+v", DefaultMassDelete, set.Changes)
	}
}

// S10: a path the workspace changed while the command ran is a conflict,
// never merged silently.
func TestRead_S10_Conflict(t *testing.T) {
	ws := tree(t, map[string]string{"a": "a\n", "b": "b\n"})
	started := time.Now()
	st := staged(t, ws, "echo cmd > a; echo cmd > b")
	time.Sleep(10 * time.Millisecond) // past the file system's timestamp granularity
	os.WriteFile(filepath.Join(ws, "a"), []byte("user\n"), 0o644)
	set, _ := Read(st.Upper, ws, started)
	set.Classify(&Rules{})
	for _, c := range set.Changes {
		if want := c.Path == "a"; c.Conflict != want || (c.Class == Hold) != want {
			t.Errorf("%s: conflict %v class %d", c.Path, c.Conflict, c.Class)
		}
	}
}

type memCheckpoint struct{ before, after map[string]string }

func (m *memCheckpoint) KeepAll(files []Before) []error {
	for _, f := range files {
		m.before[f.Path] = string(f.Old)
		if !f.Exists {
			m.before[f.Path] = "<none>"
		}
	}
	return make([]error, len(files))
}

func (m *memCheckpoint) ChangedAll(files []After) {
	for _, f := range files {
		m.after[f.Path] = f.Hash
		if !f.Exists {
			m.after[f.Path] = "<none>"
		}
	}
}

// S9: the merge lands every change, keeps each file's previous content
// for the checkpoint, and moves a new directory tree with one rename.
func TestMerge_S9_Lands(t *testing.T) {
	ws := tree(t, map[string]string{"a": "a\n", "gone": "g\n", "old/x": "x\n"})
	st := staged(t, ws, "echo more >> a; rm gone; rm -rf old; mkdir -p new/d; echo n > new/d/n; ln -s a link")
	set, _ := Read(st.Upper, ws, time.Now())
	set.Classify(&Rules{})
	var upIno uint64
	if fi, err := os.Stat(filepath.Join(st.Upper, "new")); err == nil {
		upIno = ino(fi)
	}
	cp := &memCheckpoint{before: map[string]string{}, after: map[string]string{}}
	rep, err := Merge(set, set.Changes, cp)
	if err != nil || len(rep.Failed) > 0 {
		t.Fatalf("merge: %v %+v", err, rep.Failed)
	}
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(ws, p)); return string(b) }
	if read("a") != "a\nmore\n" || read("new/d/n") != "n\n" {
		t.Errorf("contents: a %q new/d/n %q", read("a"), read("new/d/n"))
	}
	for _, p := range []string{"gone", "old"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s was not deleted", p)
		}
	}
	if tg, _ := os.Readlink(filepath.Join(ws, "link")); tg != "a" {
		t.Errorf("link -> %q", tg)
	}
	if fi, err := os.Stat(filepath.Join(ws, "new")); err != nil || ino(fi) != upIno {
		t.Errorf("the new tree was not moved with one rename (inode %v, stage's %d)", err, upIno)
	}
	wantBefore := map[string]string{"a": "a\n", "gone": "g\n", "old/x": "x\n", "new/d/n": "<none>"}
	for p, w := range wantBefore {
		if cp.before[p] != w {
			t.Errorf("checkpoint before %s = %q, want %q", p, cp.before[p], w)
		}
	}
	if cp.after["gone"] != "<none>" || cp.after["old/x"] != "<none>" || cp.after["a"] != hashOf([]byte("a\nmore\n")) || cp.after["new/d/n"] != hashOf([]byte("n\n")) {
		t.Errorf("checkpoint after: %q", cp.after)
	}
}

// S9: nothing lands through a symlink: a directory the workspace
// replaced with a link to .git after the command ran takes no file.
func TestMerge_S9_NeverThroughASymlink(t *testing.T) {
	ws := tree(t, map[string]string{"docs/notes/a": "a\n", ".git/HEAD": "ref: refs/heads/main\n"})
	st := staged(t, ws, "echo evil > docs/notes/HEAD")
	set, _ := Read(st.Upper, ws, time.Now())
	set.Classify(&Rules{})
	os.RemoveAll(filepath.Join(ws, "docs/notes"))
	os.Symlink("../.git", filepath.Join(ws, "docs/notes"))
	rep, err := Merge(set, set.Changes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git/HEAD")); string(b) != "ref: refs/heads/main\n" {
		t.Fatalf(".git/HEAD was written through the symlink: %q", b)
	}
	if len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Err.Error(), "symlink") {
		t.Errorf("the change did not fail as leading through a symlink: %+v", rep.Failed)
	}
}

// S9: a merge across file systems copies, atomically per file.
func TestMerge_S9_CopiesAcrossFileSystems(t *testing.T) {
	ws := tree(t, map[string]string{"a": "a\n"})
	st := staged(t, ws, "echo b > a; mkdir t; echo c > t/c")
	set, _ := Read(st.Upper, ws, time.Now())
	set.Classify(&Rules{})
	m, _ := newMerger(set, set.Changes, nil)
	m.sameFS = false
	for _, c := range set.Changes {
		if !m.done[c] {
			if err := m.apply(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	m.close()
	for p, w := range map[string]string{"a": "b\n", "t/c": "c\n"} {
		if b, _ := os.ReadFile(filepath.Join(ws, p)); string(b) != w {
			t.Errorf("%s = %q", p, b)
		}
	}
	if _, err := os.Stat(filepath.Join(st.Upper, "a")); err != nil {
		t.Errorf("copying moved the stage's file: %v", err)
	}
}

func ino(fi fs.FileInfo) uint64 {
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil {
		return 0
	}
	return st.Ino
}

// S9: a stage is never made in a directory another user could have
// prepared: a symlink, or one others can write.
func TestNew_S9_PrivateBase(t *testing.T) {
	d, ws := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(d, "open"), 0o777)
	os.Chmod(filepath.Join(d, "open"), 0o777)
	os.Symlink(filepath.Join(d, "open"), filepath.Join(d, "link"))
	for _, base := range []string{filepath.Join(d, "open"), filepath.Join(d, "link"), ws, filepath.Join(ws, "in")} {
		if st, err := New(base, ws); err == nil {
			st.Remove()
			t.Errorf("a stage was made in %s", base)
		}
	}
	st, err := New(filepath.Join(d, "mine"), ws)
	if err != nil {
		t.Fatal(err)
	}
	st.Remove()
}

// S10: the mass-deletion guard knows what git tracks (a real index), and
// counts every file when there is no index to read.
func TestTrackedLazy_S10(t *testing.T) {
	ws := tree(t, map[string]string{"src/a.go": "a\n", "out/o": "o\n"})
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", ws, "add", "src/a.go").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	tr := TrackedLazy(ws)
	if !tr("src/a.go") || tr("out/o") {
		t.Errorf("tracked: src/a.go %v, out/o %v", tr("src/a.go"), tr("out/o"))
	}
	if none := TrackedLazy(t.TempDir()); !none("anything") {
		t.Error("without an index a file must count as tracked")
	}
}

// S10: a command that changes git's configuration has every other change
// held with it: the configuration it wrote may point git at files the
// same command wrote (core.hooksPath = tools/hooks, with the hook).
func TestClassify_S10_ConfigChangeHoldsAll(t *testing.T) {
	set := &Set{Changes: []*Change{{Path: ".git/config", Op: Modify}, {Path: "tools/hooks/pre-commit", Op: Add}, {Path: "src/a.go", Op: Modify}}}
	set.Classify(&Rules{})
	for _, c := range set.Changes {
		if c.Class != Hold {
			t.Errorf("%s: class %d, want held", c.Path, c.Class)
		}
	}
	set = &Set{Changes: []*Change{{Path: "src/a.go", Op: Modify}, {Path: "docs/config", Op: Add}}}
	set.Classify(&Rules{})
	for _, c := range set.Changes {
		if c.Class != Land {
			t.Errorf("no config change, %s: class %d (%s)", c.Path, c.Class, c.Why)
		}
	}
}
