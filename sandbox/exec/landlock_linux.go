package exec

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// landlockABI returns the kernel's Landlock ABI version.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0,
		unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
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
func buildLandlock(pr *probeResult, s *Spec, tmp, gocache string, toolchains []string, plan *controlPlan, denyTCP bool) *child.Landlock {
	er, el := pr.etc.get()
	r := &child.Landlock{ABI: pr.abi, DenyTCP: denyTCP, Dev: devFiles, List: el}
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
