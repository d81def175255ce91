package child

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	llRead  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llFiles = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llDev = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// llAttr is struct landlock_ruleset_attr up to the scopes of ABI 6.
type llAttr struct {
	fs, net, scoped uint64
}

// handledFS are the file-system rights that ABI abi knows; handling them
// all means whatever no rule grants is denied.
func handledFS(abi int) uint64 {
	a := uint64(unix.LANDLOCK_ACCESS_FS_MAKE_SYM<<1 - 1) // ABI 1: EXECUTE … MAKE_SYM
	if abi >= 2 {
		a |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		a |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		a |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return a
}

// applyLandlock restricts the calling thread (and what it execs) to r.
// The caller has set no_new_privs and locked the goroutine to its thread.
func applyLandlock(r *Landlock) error {
	attr := llAttr{fs: handledFS(r.ABI)}
	size := unsafe.Sizeof(attr.fs)
	if r.ABI >= 4 {
		size += unsafe.Sizeof(attr.net)
		if r.DenyTCP {
			attr.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
	}
	if r.ABI >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET,
		uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("creating the ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, set := range []struct {
		paths   []string
		access  uint64
		symlink symlinkRule
	}{
		{r.Read, llRead, followSymlinks}, {r.Resolved, llRead, noSymlinks},
		{r.List, unix.LANDLOCK_ACCESS_FS_READ_DIR, followSymlinks},
		{r.Write, attr.fs, followSymlinks}, {r.Entries, attr.fs, noFinalSymlink},
		{r.Dev, llDev, followSymlinks},
	} {
		for _, p := range set.paths {
			if err := addPathRule(int(fd), p, set.access&attr.fs, set.symlink); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("restricting: %w", errno)
	}
	return nil
}

// symlinkRule says how a rule's path may use symlinks.
type symlinkRule int

const (
	followSymlinks symlinkRule = iota // like any open
	noFinalSymlink                    // a symlink as the last component grants nothing
	noSymlinks                        // a symlink anywhere in the path grants nothing
)

// addPathRule grants access beneath p; a missing or unreachable p is
// skipped (it grants nothing), and so is one that uses a symlink the
// rule does not allow.
func addPathRule(ruleset int, p string, access uint64, symlink symlinkRule) error {
	fd, err := openRulePath(p, symlink)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFiles
	}
	if access == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset),
		unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// openRulePath opens p as an O_PATH descriptor under symlink's rule.
// openat2 exists wherever Landlock does (Linux 5.6 against 5.13).
func openRulePath(p string, symlink symlinkRule) (int, error) {
	flags := unix.O_PATH | unix.O_CLOEXEC
	switch symlink {
	case noFinalSymlink:
		flags |= unix.O_NOFOLLOW
	case noSymlinks:
		return unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
			Flags: uint64(flags | unix.O_NOFOLLOW), Resolve: unix.RESOLVE_NO_SYMLINKS,
		})
	}
	return unix.Open(p, flags, 0)
}
