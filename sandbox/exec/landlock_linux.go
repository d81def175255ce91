package exec

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockRules is the S3 file-system policy of one command, built by
// [Runner.Run] and applied by the exec stage. Paths that do not exist are
// skipped; a rule on a file grants only the file rights of its set.
type landlockRules struct {
	ABI  int      `json:"abi"`
	Read []string `json:"read"` // read files, list directories, execute — beneath
	// Resolved are read roots like Read that the server has already
	// resolved through symlinks (the toolchains, S7): they are opened
	// with RESOLVE_NO_SYMLINKS, so one with a symlink anywhere in its
	// path by now (a directory swapped since it was checked) grants
	// nothing.
	Resolved []string `json:"resolved,omitempty"`
	List     []string `json:"list"`  // list directories only (parts of them are secret)
	Write    []string `json:"write"` // every right, beneath
	// Entries get every right beneath, like Write, but a symlink is not
	// followed: an entry that has become one since the plan is skipped.
	Entries []string `json:"entries,omitempty"`
	Dev     []string `json:"dev"`     // device files: read, write, truncate, ioctl
	DenyTCP bool     `json:"denyTCP"` // no network namespace: refuse TCP bind and connect
}

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

// landlockABI returns the kernel's Landlock ABI version.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0,
		unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
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
func applyLandlock(r *landlockRules) error {
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

// systemReadRoots are readable by every command (S3): system programs and
// libraries, and /proc and /sys, which runtimes and build tools read.
// /proc is the command's own with the procfs layer; without it, it is the
// host's, where other processes' command lines are visible but their
// environment, memory and open files are not (ptrace checks, which
// Landlock confines to the command's own domain).
var systemReadRoots = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sys",
}

// devFiles are the device files a command may open.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// etcSecrets are the secret parts of /etc (path.Match patterns relative to
// /etc). Landlock cannot carve an exception out of a readable directory,
// so /etc is granted entry by entry around them.
var etcSecrets = []string{
	"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d",
	"ssh/ssh_host_*key", "ssl/private", "pki/tls/private", "letsencrypt",
	"security/opasswd", "krb5.keytab", "NetworkManager/system-connections", "wireguard",
	"ipsec.secrets", "ipsec.d/private", "ppp/chap-secrets", "ppp/pap-secrets", "openvpn",
	"credstore", "credstore.encrypted", "docker/key.json", "kubernetes", "rancher",
}

// etcRules are the readable entries of /etc and the directories that
// may only be listed, found once per runner, at its first command.
type etcRules struct {
	once       sync.Once
	read, list []string
}

func (e *etcRules) get() (read, list []string) {
	e.once.Do(func() {
		e.list = []string{"/etc"}
		walkEtc("", &e.read, &e.list)
	})
	return e.read, e.list
}

func walkEtc(rel string, read, list *[]string) {
	entries, err := os.ReadDir(filepath.Join("/etc", rel))
	if err != nil {
		return
	}
	for _, e := range entries {
		p := path.Join(rel, e.Name())
		full := filepath.Join("/etc", p)
		switch {
		case etcSecret(p):
		case e.Type()&os.ModeSymlink != 0:
			// Symlinks are followed when the rule is added: keep those
			// whose target stays in the readable part of /etc; targets
			// elsewhere are readable through their own roots, or not.
			t, err := filepath.EvalSymlinks(full)
			if r, ok := strings.CutPrefix(t, "/etc/"); err == nil && ok &&
				!etcSecret(r) && !etcSecretBelow(r) {
				*read = append(*read, full)
			}
		case e.IsDir() && etcSecretBelow(p):
			*list = append(*list, full)
			walkEtc(p, read, list)
		default:
			*read = append(*read, full)
		}
	}
}

func etcSecret(rel string) bool {
	for _, pat := range etcSecrets {
		if ok, _ := path.Match(pat, rel); ok {
			return true
		}
	}
	return false
}

func etcSecretBelow(rel string) bool {
	for _, pat := range etcSecrets {
		if strings.HasPrefix(pat, rel+"/") {
			return true
		}
	}
	return false
}

// buildLandlock returns the rules for one command: the system roots,
// /etc without its secrets, the toolchains (read), the workspace, the
// private temp dir and the workspace's build cache (write), and the
// policy's extra read roots. With a control plan, the workspace is
// readable and only the plan's grants are writable there and in the
// cache (see [planControl]).
func buildLandlock(pr *probeResult, s *Spec, tmp, gocache string, toolchains []string, plan *controlPlan, denyTCP bool) *landlockRules {
	er, el := pr.etc.get()
	r := &landlockRules{ABI: pr.abi, DenyTCP: denyTCP, Dev: devFiles, List: el}
	r.Read = append(append(r.Read, systemReadRoots...), er...)
	for _, p := range []string{pr.tc.goroot, pr.tc.gomodcache} {
		if p != "" {
			r.Read = append(r.Read, p)
		}
	}
	r.Resolved = toolchains
	if s.AllowNetwork {
		// resolv.conf may be a symlink to /run (systemd-resolved).
		if t, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil {
			r.Read = append(r.Read, t)
		}
	}
	for _, p := range s.ReadRoots {
		if filepath.IsAbs(p) {
			r.Read = append(r.Read, filepath.Clean(p))
		}
	}
	if plan != nil {
		r.Read = append(r.Read, s.Dir)
		r.Write, r.Entries = []string{tmp}, plan.grants
		return r
	}
	r.Write = []string{s.Dir, tmp}
	if gocache != "" {
		r.Write = append(r.Write, gocache)
	}
	return r
}

// errNoLandlock explains a missing Landlock.
func landlockMissing(err error) string {
	switch {
	case errors.Is(err, unix.ENOSYS):
		return "the kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)"
	case errors.Is(err, unix.EOPNOTSUPP):
		return "Landlock is not enabled at boot (add landlock to the lsm= list)"
	}
	return "landlock_create_ruleset: " + err.Error()
}
