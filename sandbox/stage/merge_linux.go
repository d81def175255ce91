package stage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// Merge applies changes, which are of set and in its order, to the
// workspace: deletions, then each file atomically (renamed from the upper
// layer when it lies on the workspace's file system, else copied to a
// temporary file beside its target and renamed); a new directory whose
// whole subtree lands moves with one rename. Every path is opened one
// component at a time without following a symlink, so nothing lands
// through a link the workspace or the command placed. cp (may be nil)
// gets every regular file's state before anything changes and after.
func Merge(set *Set, changes []*Change, cp Checkpoint) (*Report, error) {
	m, err := newMerger(set, changes, cp)
	if err != nil {
		return nil, err
	}
	defer m.close()
	m.planTrees()
	var befores []Before
	if cp != nil {
		befores = m.befores(changes)
		cp.KeepAll(befores) // a file not kept still changes; its revert is refused
	}
	rep := &Report{}
	for _, c := range changes {
		if m.done[c] {
			continue
		}
		if err := m.apply(c); err != nil {
			rep.Failed = append(rep.Failed, Failure{c, err})
			m.skipBelow(c)
			continue
		}
		rep.Landed = append(rep.Landed, c)
	}
	for _, c := range changes {
		if m.landed[c] {
			rep.Landed = append(rep.Landed, c)
		}
	}
	if cp != nil {
		cp.ChangedAll(m.afters(befores))
	}
	return rep, nil
}

type merger struct {
	set     *Set
	cp      Checkpoint
	root    int // the workspace
	upper   int // the stage's upper layer
	sameFS  bool
	selects map[*Change]bool
	done    map[*Change]bool
	whole   map[*Change]bool  // new directories that move with one rename
	landed  map[*Change]bool  // moved with their directory
	hashes  map[string]string // files landed: their content's hash
	gone    map[string]bool   // workspace paths deleted (a directory with all beneath)
}

func newMerger(set *Set, changes []*Change, cp Checkpoint) (*merger, error) {
	m := &merger{set: set, cp: cp, root: -1, upper: -1, selects: map[*Change]bool{}, done: map[*Change]bool{},
		whole: map[*Change]bool{}, landed: map[*Change]bool{}, hashes: map[string]string{}, gone: map[string]bool{}}
	var err error
	if m.root, err = openDir(set.Root); err != nil {
		return nil, fmt.Errorf("stage: opening the workspace: %w", err)
	}
	if m.upper, err = openDir(set.Upper); err != nil {
		m.close()
		return nil, fmt.Errorf("stage: opening the stage: %w", err)
	}
	var a, b unix.Stat_t
	if unix.Fstat(m.root, &a) == nil && unix.Fstat(m.upper, &b) == nil {
		m.sameFS = a.Dev == b.Dev
	}
	for _, c := range changes {
		m.selects[c] = true
	}
	return m, nil
}

func (m *merger) close() {
	for _, fd := range []int{m.root, m.upper} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

func openDir(p string) (int, error) {
	return unix.Open(p, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
}

// planTrees finds the new directories whose every change beneath lands,
// on the stage's file system: each moves with one rename.
func (m *merger) planTrees() {
	if !m.sameFS {
		return
	}
	for c := range m.selects {
		if c.Op != Add || !c.IsDir() {
			continue
		}
		whole := true
		for _, o := range m.set.Changes {
			if o != c && under(o.Path, c.Path) && !m.selects[o] {
				whole = false
				break
			}
		}
		m.whole[c] = whole
	}
}

// skipBelow marks the changes beneath a failed directory as done: they
// cannot land without it.
func (m *merger) skipBelow(c *Change) {
	if !c.IsDir() || c.Op == Delete {
		return
	}
	for o := range m.selects {
		if o != c && under(o.Path, c.Path) {
			m.done[o] = true
		}
	}
}

func (m *merger) apply(c *Change) error {
	dir, name := path.Split(c.Path)
	pfd, err := openBeneath(m.root, strings.TrimSuffix(dir, "/"))
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	switch {
	case c.Op == Delete:
		return m.remove(pfd, name, c.Path)
	case c.IsDir() && c.Op == Modify:
		return unix.Fchmodat(pfd, name, uint32(c.Perm), 0)
	case c.IsDir():
		return m.addDir(pfd, name, c)
	case c.Type == fs.ModeSymlink:
		return m.symlink(pfd, name, c)
	}
	return m.file(pfd, name, c)
}

// openBeneath opens the directory rel beneath dirfd one component at a
// time, refusing symlinks and anything but directories.
func openBeneath(dirfd int, rel string) (int, error) {
	fd, err := unix.Openat(dirfd, ".", unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil || rel == "" {
		return fd, err
	}
	for comp := range strings.SplitSeq(rel, "/") {
		next, err := unix.Openat(fd, comp, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				return -1, fmt.Errorf("%s leads through a symlink or a file (%s)", rel, comp)
			}
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// file lands a regular file.
func (m *merger) file(pfd int, name string, c *Change) error {
	updir, _ := path.Split(c.Path)
	ufd, err := openBeneath(m.upper, strings.TrimSuffix(updir, "/"))
	if err != nil {
		return err
	}
	defer unix.Close(ufd)
	var sum string
	if m.cp != nil {
		if sum, err = hashAt(ufd, name); err != nil {
			return err
		}
	}
	if m.sameFS {
		err = unix.Renameat2(ufd, name, pfd, name, renameFlags(c))
	} else {
		err = m.copyIn(ufd, pfd, name, c)
	}
	if err == nil {
		m.hashes[c.Path] = sum
	}
	return err
}

// renameFlags: an added path must not replace one that appeared since.
func renameFlags(c *Change) uint {
	if c.Op == Add {
		return unix.RENAME_NOREPLACE
	}
	return 0
}

// tempName is the name a file or symlink is made under before it is
// renamed into place.
func tempName(name string) string {
	t := ".agentls-merge-" + name
	if len(t) > 255 {
		t = t[:255]
	}
	return t
}

// copyIn copies the upper file into a temporary file beside its target
// and renames it into place.
func (m *merger) copyIn(ufd, pfd int, name string, c *Change) error {
	src, err := unix.Openat(ufd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	in := os.NewFile(uintptr(src), name)
	defer in.Close()
	tmp := tempName(name)
	dst, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(c.Perm))
	if err != nil {
		return err
	}
	out := os.NewFile(uintptr(dst), tmp)
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(c.Perm)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat2(pfd, tmp, pfd, name, renameFlags(c))
	}
	if err != nil {
		unix.Unlinkat(pfd, tmp, 0)
	}
	return err
}

// symlink lands a symlink: made under a temporary name, renamed over.
func (m *merger) symlink(pfd int, name string, c *Change) error {
	tmp := tempName(name)
	if err := unix.Symlinkat(c.Target, pfd, tmp); err != nil {
		return err
	}
	if err := unix.Renameat2(pfd, tmp, pfd, name, renameFlags(c)); err != nil {
		unix.Unlinkat(pfd, tmp, 0)
		return err
	}
	return nil
}

// addDir lands a new directory: with its whole subtree in one rename
// when [merger.planTrees] found it can, else empty (its entries follow).
func (m *merger) addDir(pfd int, name string, c *Change) error {
	if !m.whole[c] {
		return unix.Mkdirat(pfd, name, uint32(c.Perm))
	}
	updir, _ := path.Split(c.Path)
	ufd, err := openBeneath(m.upper, strings.TrimSuffix(updir, "/"))
	if err != nil {
		return err
	}
	defer unix.Close(ufd)
	if err := unix.Renameat2(ufd, name, pfd, name, unix.RENAME_NOREPLACE); err != nil {
		return err
	}
	var below []*Change
	for _, o := range m.set.Changes {
		if o != c && under(o.Path, c.Path) && m.selects[o] && !m.done[o] {
			m.done[o], m.landed[o] = true, true
			below = append(below, o)
		}
	}
	if m.cp != nil {
		m.hashMoved(pfd, c.Path, below)
	}
	return nil
}

// remove deletes name beneath pfd: a file or symlink, or a directory
// with everything in it, never following a symlink.
func (m *merger) remove(pfd int, name, rel string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil // gone already
		}
		return err
	}
	flags := 0
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		fd, err := unix.Openat(pfd, name, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		err = removeEntries(fd, rel)
		unix.Close(fd)
		if err != nil {
			return err
		}
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(pfd, name, flags); err != nil {
		return err
	}
	m.gone[rel] = true
	return nil
}

// removeEntries removes everything in the directory fd.
func removeEntries(fd int, rel string) error {
	names, err := readNames(fd)
	if err != nil {
		return fmt.Errorf("reading %s: %w", rel, err)
	}
	for _, n := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		flags := 0
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			sub, err := unix.Openat(fd, n, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return err
			}
			err = removeEntries(sub, rel+"/"+n)
			unix.Close(sub)
			if err != nil {
				return err
			}
			flags = unix.AT_REMOVEDIR
		}
		if err := unix.Unlinkat(fd, n, flags); err != nil {
			return err
		}
	}
	return nil
}

// readNames lists the directory fd (a duplicate is read, fd stays open).
func readNames(fd int) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(dup), "dir")
	defer d.Close()
	return d.Readdirnames(-1)
}
