package exec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// The probe cache (issue 16). The probe's helper starts (the helper
// binary's handshake and the namespace trials) cost a few sandbox-helper
// launches per process; their outcome cannot change within one boot for
// one user, binary and configuration, so a probe that found everything is
// remembered per boot, in a file of the user's:
//
//   - Only the strongest outcome is stored: every namespace (user, PID,
//     network, mount with its own /proc, UTS), the helper binary's
//     handshake passed, and no layer missing at all. A probe that missed
//     anything is never stored, so a transient failure cannot weaken the
//     sandbox until the next boot; and a stored entry can only claim
//     more, never less: if the claim is wrong, the helper's setup fails
//     and the command with it (fail closed), and [probeResult.helperFailed]
//     drops the cache so that the next process probes again.
//   - An entry is the SHA-256 of everything the outcome depends on that
//     can change within a boot ([probeCacheKey]): boot ID, credentials and
//     capabilities, kernel, this code's version, the helper's identity,
//     the process's namespaces, security label and seccomp state, and the
//     sysctls that gate unprivileged namespaces.
//   - The file is the user's alone (directory 0700, file 0600, written
//     atomically); one that is not a regular file owned by the user, is
//     writable by others, is a symlink, too big or unparsable is ignored,
//     and the probe runs (an enhancement fails open). Commands cannot
//     write it: Landlock grants them only the workspace, their private
//     temp dir and their build cache, and the cache is used only where
//     Landlock is.
//   - What the probe finds in-process (Landlock, seccomp, disk accounting,
//     the pids cgroup, toolchain, shell) is found every time: cheap
//     system calls.

// probeCacheFormat numbers the file's format and the meaning of an entry.
const probeCacheFormat = 2 // 2: the outcome includes staging

// probeCacheMax bounds the entries kept (binaries and users of one
// machine) and the bytes read.
const (
	probeCacheMax   = 8
	probeCacheBytes = 4 << 10
)

// probeCacheName is the file's name in the cache directory.
const probeCacheName = "probe-cache.json"

// allNamespaces is the only outcome of probeNamespaces that is cached.
const allNamespaces = unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWNS | unix.CLONE_NEWUTS

// probeCacheRoot, when not "", replaces the default directory (tests:
// every runner of the test binary uses a directory of its own). Set once,
// before any runner.
var probeCacheRoot string

// probeCacheFile is the file's content.
type probeCacheFile struct {
	Format  int      `json:"format"`
	Entries []string `json:"entries"` // hex SHA-256 of a key, newest first
}

// probeCache is one process's view of the cache for one helper. A nil
// *probeCache stores and drops nothing.
type probeCache struct {
	dir  string
	key  string // hex SHA-256 of probeCacheKey
	hit  bool   // the file holds key: skip the probe's helper starts
	drop sync.Once
}

// openProbeCache reads the cache for helper bin (nil: /proc/self/exe). It
// returns nil when no key can be made (the probe runs and nothing is
// stored); a missing or bad file is a miss.
func openProbeCache(bin *helperBin) *probeCache {
	dir, err := probeCacheDir()
	if err != nil {
		return nil
	}
	key, err := probeCacheKey(bin)
	if err != nil {
		return nil
	}
	c := &probeCache{dir: dir, key: key}
	if f, err := readProbeCache(dir); err == nil {
		c.hit = slices.Contains(f.Entries, key) && landlockPresent()
	}
	return c
}

// landlockPresent reports whether commands run under Landlock here, which
// keeps them from writing the cache. (Only a probe that found it is
// stored; this keeps an entry written by anyone else from being used
// where Landlock is missing.)
func landlockPresent() bool {
	abi, err := landlockABI()
	return err == nil && abi > 0
}

// probeCacheDir is $XDG_RUNTIME_DIR/agentls (a tmpfs of the user's,
// emptied at logout), else the user's cache directory's agentls.
func probeCacheDir() (string, error) {
	if probeCacheRoot != "" {
		return probeCacheRoot, nil
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentls"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "agentls"), nil
}

// readProbeCache reads and checks the file in dir.
func readProbeCache(dir string) (*probeCacheFile, error) {
	dfd, err := openCacheDir(dir)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, probeCacheName, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), probeCacheName)
	defer f.Close()
	if err := checkTrusted(fd, unix.S_IFREG, false); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, probeCacheBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > probeCacheBytes {
		return nil, errors.New("probe cache: too big")
	}
	var pc probeCacheFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("probe cache: data after the object")
	}
	if pc.Format != probeCacheFormat || len(pc.Entries) > probeCacheMax {
		return nil, errors.New("probe cache: unknown format")
	}
	for _, e := range pc.Entries {
		if len(e) != sha256.Size*2 {
			return nil, errors.New("probe cache: bad entry")
		}
	}
	return &pc, nil
}

// openCacheDir opens dir, which must be a directory of this user's that
// nobody else can write.
func openCacheDir(dir string) (int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := checkTrusted(fd, unix.S_IFDIR, false); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// store adds the key to the file (when not there yet): the probe found
// everything.
func (c *probeCache) store() {
	if c == nil || c.hit {
		return
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return
	}
	entries := []string{c.key}
	if old, err := readProbeCache(c.dir); err == nil {
		for _, e := range old.Entries {
			if e != c.key && len(entries) < probeCacheMax {
				entries = append(entries, e)
			}
		}
	}
	b, _ := json.Marshal(&probeCacheFile{Format: probeCacheFormat, Entries: entries})
	if writeProbeCache(c.dir, b) == nil {
		c.hit = true // stored: a failure later drops it
	}
}

// writeProbeCache replaces the file in dir with b: a temp file (0600)
// renamed over it.
func writeProbeCache(dir string, b []byte) error {
	dfd, err := openCacheDir(dir)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	tmp := probeCacheName + ".tmp" + strconv.Itoa(os.Getpid())
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, probeCacheName)
	}
	if err != nil {
		unix.Unlinkat(dfd, tmp, 0)
	}
	return err
}

// forget removes the file: an entry was wrong (or may be), and every
// process probes again.
func (c *probeCache) forget() {
	if c == nil {
		return
	}
	c.drop.Do(func() {
		if dfd, err := openCacheDir(c.dir); err == nil {
			unix.Unlinkat(dfd, probeCacheName, 0)
			unix.Close(dfd)
		}
	})
}

// helperFailed is called when a helper started with this probe's
// namespaces could not be started or reported a setup error: if the
// namespaces came from the cache (or were stored in it), the claim may be
// wrong, so the cache is dropped and the next process probes again. The
// command itself has failed already (closed).
func (p *probeResult) helperFailed() {
	if p != nil && p.cache != nil && p.cache.hit {
		p.cache.forget()
	}
}

// cacheSysctls gate unprivileged namespaces (Debian's and Ubuntu's
// switches, the per-user limits, AppArmor's restriction); read as they
// are (a missing one reads as such).
var cacheSysctls = []string{
	"kernel/unprivileged_userns_clone",
	"kernel/apparmor_restrict_unprivileged_userns",
	"kernel/apparmor_restrict_unprivileged_unconfined",
	"user/max_user_namespaces", "user/max_pid_namespaces", "user/max_net_namespaces",
	"user/max_mnt_namespaces", "user/max_uts_namespaces",
}

// cacheStatusFields are the lines of /proc/self/status the probe's
// outcome depends on: credentials, capabilities, no_new_privs, seccomp.
var cacheStatusFields = []string{"Uid:", "Gid:", "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:", "Seccomp:"}

// probeCacheKey hashes what the probe's outcome with helper bin depends
// on. It fails when the boot ID or the helper's identity is unknown.
func probeCacheKey(bin *helperBin) (string, error) {
	var k strings.Builder
	add := func(name, v string) { fmt.Fprintf(&k, "%s=%q\n", name, v) }
	add("format", strconv.Itoa(probeCacheFormat))
	add("code", child.Version()) // this probe's code
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil || len(bytes.TrimSpace(boot)) == 0 {
		return "", errors.New("no boot ID")
	}
	add("boot", string(bytes.TrimSpace(boot)))
	add("ids", fmt.Sprint(os.Getuid(), os.Geteuid(), os.Getgid(), os.Getegid()))
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", err
	}
	add("kernel", unix.ByteSliceToString(u.Release[:])+" "+unix.ByteSliceToString(u.Version[:])+" "+unix.ByteSliceToString(u.Machine[:]))
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		for _, f := range cacheStatusFields {
			if strings.HasPrefix(line, f) {
				add("status", line)
			}
		}
	}
	for _, ns := range []string{"user", "pid", "net", "mnt", "uts", "cgroup"} {
		l, _ := os.Readlink("/proc/self/ns/" + ns)
		add("ns", l)
	}
	label, _ := os.ReadFile("/proc/self/attr/current") // AppArmor or SELinux
	add("label", string(bytes.TrimSpace(label)))
	for _, s := range cacheSysctls {
		v, err := os.ReadFile("/proc/sys/" + s)
		if err != nil {
			add(s, "-")
			continue
		}
		add(s, string(bytes.TrimSpace(v)))
	}
	add("tmp", os.TempDir()) // where the mount trial's scratch dir is
	var st unix.Stat_t
	if bin == nil {
		err = unix.Stat("/proc/self/exe", &st)
		add("helper", "self")
	} else {
		err = unix.Fstat(int(bin.file.Fd()), &st)
		add("helper", "bin "+child.Version()) // the version the handshake wants
	}
	if err != nil {
		return "", err
	}
	add("id", fmt.Sprint(st.Dev, st.Ino, st.Size, st.Mode, st.Uid, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec))
	sum := sha256.Sum256([]byte(k.String()))
	return hex.EncodeToString(sum[:]), nil
}
