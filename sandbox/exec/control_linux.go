package exec

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agentls/agentls/sandbox"
)

// How a command that runs without asking is kept away from the control
// files of E15 (S6). Two layers, each holding alone:
//
//   - Landlock: the workspace's top directory is granted read only, and
//     write is granted beneath each of its entries that is not a control
//     file ([carve]). A missing control file cannot be created, because
//     nothing can be created at the top (Landlock grants by hierarchy,
//     never by name, so a name that does not exist yet cannot be carved
//     out any other way), and an existing one cannot be written, removed
//     or renamed. Where a control file is a symlink, or .git a gitfile,
//     the place it leads to is carved out of the writable roots too, even
//     when it does not exist yet.
//   - the mount namespace: every existing control path is bind-mounted
//     read-only over itself, so writes fail with EROFS even without
//     Landlock, and a mount point cannot be removed or renamed (EBUSY).
//
// A command the user approved gets neither.

// controlPlan is the protection of one command's control files.
type controlPlan struct {
	grants   []string // write beneath these (dirs) or write these (files); never follow a symlink
	readOnly []string // existing control paths, resolved, to bind-mount read-only
}

// planControl finds the control files of workspace ws and where they lead
// (through symlinks and gitfiles), and carves them out of the writable
// roots ws and others (the command's build cache).
func planControl(ws string, others []string) *controlPlan {
	roots := append([]string{ws}, others...)
	var targets []string
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if _, ok := sandbox.ControlName(e.Name()); !ok {
			continue
		}
		p := filepath.Join(ws, e.Name())
		t := resolveTarget(p)
		targets = append(targets, t)
		targets = append(targets, controlLinks(t)...)
	}
	plan := &controlPlan{}
	for _, t := range targets {
		if rootOf(t, roots) == "" {
			continue // not writable anyway
		}
		if _, err := os.Lstat(t); err == nil && !slices.Contains(plan.readOnly, t) {
			plan.readOnly = append(plan.readOnly, t)
		}
	}
	// Parents before children: a child's mount lands on the parent's.
	slices.SortFunc(plan.readOnly, func(a, b string) int { return len(a) - len(b) })
	for _, r := range roots {
		var excl []string
		for _, t := range targets {
			if within(t, r) {
				excl = append(excl, t)
			}
		}
		if r == ws || len(excl) > 0 {
			plan.grants = append(plan.grants, carve(r, excl, r == ws)...)
		} else {
			plan.grants = append(plan.grants, r)
		}
	}
	return plan
}

// controlLinks returns where a control path's contents lead: for a
// gitfile ("gitdir: …"), the git directory and its commondir; for a
// directory (the git directory too), the targets of the symlinks among
// its entries and among those of its hooks directory (git follows
// .git/hooks/x and .git/config wherever they point).
func controlLinks(p string) []string {
	fi, err := os.Stat(p)
	if err != nil {
		return nil
	}
	var dirs, out []string
	switch {
	case fi.Mode().IsRegular() && filepath.Base(p) == ".git":
		out = gitfileTargets(p)
		dirs = out
	case fi.IsDir():
		dirs = []string{p}
		if fi, err := os.Stat(filepath.Join(p, "commondir")); err == nil && fi.Mode().IsRegular() {
			out = append(out, commondir(p)...)
		}
	}
	for _, dir := range dirs {
		for _, d := range []string{dir, filepath.Join(dir, "hooks")} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if e.Type()&fs.ModeSymlink != 0 {
					out = append(out, resolveTarget(filepath.Join(d, e.Name())))
				}
			}
		}
	}
	return out
}

// gitfileTargets reads a gitfile and returns the git directory it names
// and that directory's commondir, resolved.
func gitfileTargets(gitfile string) []string {
	b, err := readSmall(gitfile)
	if err != nil {
		return nil
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Dir(gitfile) + "/" + dir // not Join: it would clean "link/.." away
	}
	gd := resolveTarget(dir)
	return append([]string{gd}, commondir(gd)...)
}

// commondir returns the target of gitdir/commondir, if any.
func commondir(gitdir string) []string {
	b, err := readSmall(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return nil
	}
	c := strings.TrimSpace(string(b))
	if c == "" {
		return nil
	}
	if !filepath.IsAbs(c) {
		c = gitdir + "/" + c
	}
	return []string{resolveTarget(c)}
}

// readSmall reads a regular file of at most 4 KiB, without blocking on a
// FIFO.
func readSmall(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fs.ErrInvalid
	}
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	return b[:n], nil
}

// carve returns the entries beneath root to grant write on so that the
// paths excl, and everything beneath them, stay unwritable: a directory on
// the way to an excluded path is not granted itself (nothing can be
// created, removed or renamed in it) and its other entries are. With top,
// root is the workspace and every control name among its entries is
// excluded too, in any letter case. Symlinks are never granted: what they
// lead to is granted where it lies, or not.
func carve(root string, excl []string, top bool) []string {
	var grants []string
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if top && dir == root {
				if _, ok := sandbox.ControlName(e.Name()); ok {
					continue
				}
			}
			switch {
			case slices.ContainsFunc(excl, func(x string) bool { return within(p, x) }):
			case e.Type()&fs.ModeSymlink != 0:
			case e.IsDir() && slices.ContainsFunc(excl, func(x string) bool { return within(x, p) }):
				walk(p)
			default:
				grants = append(grants, p)
			}
		}
	}
	walk(root)
	return grants
}

// rootOf returns the first of roots that p is within, or "".
func rootOf(p string, roots []string) string {
	for _, r := range roots {
		if within(p, r) {
			return r
		}
	}
	return ""
}

// resolveTarget returns where the absolute path p leads: every symlink on
// the way is followed, the last one too, also when its target does not
// exist (a write through p would create it there). What does not exist
// is kept as written: nothing beneath it can be a symlink.
func resolveTarget(p string) string {
	n := 0
	return resolveFrom("/", p, &n) // not cleaned: "link/.." is the link's parent
}

func resolveFrom(cur, rel string, links *int) string {
	comps := strings.Split(rel, "/")
	for i, c := range comps {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, comps[i+1:]...)...)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if *links++; *links > maxLinks {
			return next
		}
		t, err := os.Readlink(next)
		if err != nil {
			return next
		}
		if filepath.IsAbs(t) {
			cur = "/"
		}
		cur = resolveFrom(cur, t, links)
	}
	return cur
}

// maxLinks bounds the symlinks followed in one resolution (Linux's
// MAXSYMLINKS); it also stops loops.
const maxLinks = 40
