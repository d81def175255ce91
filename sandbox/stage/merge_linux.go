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

// MaxKeep is the most of one file's content the merge reads for the
// checkpoint; a larger file is passed cut to MaxKeep+1 bytes, which a
// checkpoint with a lower limit refuses to keep (the change still lands,
// and a revert refuses the file).
const MaxKeep = 16 << 20

// Checkpoint receives, for each regular file a merge changes, its
// content before (existed false: it did not exist) and after (exists
// false: the merge removed it). agent/session's Run implements it.
type Checkpoint interface {
	Keep(rel string, old []byte, existed bool) error
	Changed(rel string, now []byte, exists bool)
}

// Failure is a change that could not land, and why.
type Failure struct {
	Change *Change
	Err    error
}

// Report is what a merge did.
type Report struct {
	Landed []*Change
	Failed []Failure
}

// Merge applies changes, which are of set and in its order, to the
// workspace: deletions, then each file atomically (renamed from the upper
// layer when it lies on the workspace's file system, else copied to a
// temporary file beside its target and renamed); a new directory whose
// whole subtree lands moves with one rename. Every path is opened one
// component at a time without following a symlink, so nothing lands
// through a link the workspace or the command placed. cp (may be nil)
// gets each regular file's content before and after.
func Merge(set *Set, changes []*Change, cp Checkpoint) (*Report, error) {
	m, err := newMerger(set, changes, cp)
	if err != nil {
		return nil, err
	}
	defer m.close()
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
		if m.done[c] && m.moved[c] {
			rep.Landed = append(rep.Landed, c)
		}
	}
	return rep, nil
}

type merger struct {
	set     *Set
	cp      Checkpoint
	root    int // the workspace, O_PATH-free directory descriptor
	upper   int
	sameFS  bool
	selects map[*Change]bool
	done    map[*Change]bool
	moved   map[*Change]bool // landed with their directory's rename
}

func newMerger(set *Set, changes []*Change, cp Checkpoint) (*merger, error) {
	m := &merger{set: set, cp: cp, root: -1, upper: -1, selects: map[*Change]bool{}, done: map[*Change]bool{}, moved: map[*Change]bool{}}
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
	now, err := readAt(ufd, name)
	if err != nil {
		return err
	}
	if err := m.before(pfd, name, c); err != nil {
		return err
	}
	if m.sameFS {
		flags := uint(0)
		if c.Op == Add {
			flags = unix.RENAME_NOREPLACE
		}
		err = unix.Renameat2(ufd, name, pfd, name, flags)
	} else {
		err = m.copyIn(ufd, pfd, name, c)
	}
	if err != nil {
		return err
	}
	m.after(c.Path, now, true)
	return nil
}

// before keeps the workspace's content of name for the checkpoint.
func (m *merger) before(pfd int, name string, c *Change) error {
	if m.cp == nil {
		return nil
	}
	if c.Op == Add {
		return m.keep(c.Path, nil, false)
	}
	old, err := readAt(pfd, name)
	if err != nil {
		return fmt.Errorf("reading the previous content: %w", err)
	}
	return m.keep(c.Path, old, true)
}

func (m *merger) keep(rel string, old []byte, existed bool) error {
	m.cp.Keep(rel, old, existed) // a file not kept still changes; its revert is refused
	return nil
}

func (m *merger) after(rel string, now []byte, exists bool) {
	if m.cp != nil {
		m.cp.Changed(rel, now, exists)
	}
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
	tmp := ".agentls-merge-" + name
	if len(tmp) > 255 {
		tmp = tmp[:255]
	}
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
		flags := uint(0)
		if c.Op == Add {
			flags = unix.RENAME_NOREPLACE
		}
		err = unix.Renameat2(pfd, tmp, pfd, name, flags)
	}
	if err != nil {
		unix.Unlinkat(pfd, tmp, 0)
	}
	return err
}

// symlink lands a symlink: made under a temporary name, renamed over.
func (m *merger) symlink(pfd int, name string, c *Change) error {
	tmp := ".agentls-merge-" + name
	if len(tmp) > 255 {
		tmp = tmp[:255]
	}
	if err := unix.Symlinkat(c.Target, pfd, tmp); err != nil {
		return err
	}
	flags := uint(0)
	if c.Op == Add {
		flags = unix.RENAME_NOREPLACE
	}
	if err := unix.Renameat2(pfd, tmp, pfd, name, flags); err != nil {
		unix.Unlinkat(pfd, tmp, 0)
		return err
	}
	return nil
}

// addDir lands a new directory: with its whole subtree in one rename
// when every change beneath it lands and the stage shares the
// workspace's file system, else empty (its entries follow).
func (m *merger) addDir(pfd int, name string, c *Change) error {
	var below []*Change
	whole := m.sameFS
	for _, o := range m.set.Changes {
		if o != c && under(o.Path, c.Path) {
			below = append(below, o)
			whole = whole && m.selects[o]
		}
	}
	if !whole {
		return unix.Mkdirat(pfd, name, uint32(c.Perm))
	}
	updir, _ := path.Split(c.Path)
	ufd, err := openBeneath(m.upper, strings.TrimSuffix(updir, "/"))
	if err != nil {
		return err
	}
	defer unix.Close(ufd)
	if m.cp != nil {
		for _, o := range below {
			if o.Type == 0 {
				m.keep(o.Path, nil, false)
			}
		}
	}
	if err := unix.Renameat2(ufd, name, pfd, name, unix.RENAME_NOREPLACE); err != nil {
		return err
	}
	for _, o := range below {
		m.done[o], m.moved[o] = true, true
	}
	if m.cp != nil {
		m.afterMoved(pfd, c.Path, below)
	}
	return nil
}

// afterMoved records the files that landed with the directory top
// (beneath pfd), opening each directory once, never through a symlink.
func (m *merger) afterMoved(pfd int, top string, below []*Change) {
	parent, _ := path.Split(top)
	fds := map[string]int{strings.TrimSuffix(parent, "/"): pfd}
	defer func() {
		for d, fd := range fds {
			if fd != pfd && fd >= 0 {
				unix.Close(fd)
			}
			delete(fds, d)
		}
	}()
	var dirFD func(dir string) int
	dirFD = func(dir string) int {
		if fd, ok := fds[dir]; ok {
			return fd
		}
		up, name := path.Split(dir)
		fd := -1
		if pf := dirFD(strings.TrimSuffix(up, "/")); pf >= 0 {
			fd, _ = unix.Openat(pf, name, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		fds[dir] = fd
		return fd
	}
	for _, o := range below {
		if o.Type != 0 {
			continue
		}
		dir, name := path.Split(o.Path)
		if fd := dirFD(strings.TrimSuffix(dir, "/")); fd >= 0 {
			if now, err := readAt(fd, name); err == nil {
				m.after(o.Path, now, true)
			}
		}
	}
}

// remove deletes name beneath pfd: a file or symlink, or a directory
// with everything in it, never following a symlink; each regular file's
// content goes to the checkpoint first.
func (m *merger) remove(pfd int, name, rel string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil // gone already
		}
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		fd, err := unix.Openat(pfd, name, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		err = m.removeEntries(fd, rel)
		unix.Close(fd)
		if err != nil {
			return err
		}
		return unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR)
	case unix.S_IFREG:
		if m.cp != nil {
			old, err := readAt(pfd, name)
			if err != nil {
				return err
			}
			m.keep(rel, old, true)
			defer m.after(rel, nil, false)
		}
	}
	return unix.Unlinkat(pfd, name, 0)
}

func (m *merger) removeEntries(fd int, rel string) error {
	d := os.NewFile(uintptr(mustDup(fd)), rel)
	if d == nil {
		return errors.New("cannot read " + rel)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := m.remove(fd, n, rel+"/"+n); err != nil {
			return err
		}
	}
	return nil
}

func mustDup(fd int) int {
	n, err := unix.Dup(fd)
	if err != nil {
		return -1
	}
	return n
}

// readAt reads the regular file name beneath dirfd, at most MaxKeep+1
// bytes, without following a symlink or blocking on a FIFO.
func readAt(dirfd int, name string) ([]byte, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	return io.ReadAll(io.LimitReader(f, MaxKeep+1))
}
