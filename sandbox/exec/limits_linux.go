package exec

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// pidsCgroup is a writable cgroup-v1 pids hierarchy under which each
// command gets its own cgroup with pids.max. It stands in for
// RLIMIT_NPROC, which the kernel does not apply to uid 0.
type pidsCgroup struct {
	home  string // <mount>/<our cgroup>
	base  string // home/agentls
	token string // random, this value's own: see name
	seq   atomic.Uint64
}

// findPidsCgroup locates the pids controller's v1 mount and this process's
// cgroup in it, and checks that a child cgroup can be made there.
func findPidsCgroup() (*pidsCgroup, error) {
	mnt, err := pidsMount()
	if err != nil {
		return nil, err
	}
	rel, err := ownCgroup("pids")
	if err != nil {
		return nil, err
	}
	home := filepath.Join(mnt, rel)
	base := filepath.Join(home, "agentls")
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(base, "pids.max")); err != nil {
		return nil, err
	}
	// Remove what dead servers left. A cgroup is named <server pid>-…
	// (see name); those of live servers may be empty for a moment, before
	// their command joins, and must stay. rmdir fails on populated ones
	// anyway. A leftover named after this process's own (recycled) PID
	// stays too, as a live runner's would: names never collide with it.
	if old, err := os.ReadDir(base); err == nil {
		for _, e := range old {
			owner, _, _ := strings.Cut(e.Name(), "-")
			if _, err := strconv.Atoi(owner); err != nil || !e.IsDir() {
				continue
			}
			if _, err := os.Stat("/proc/" + owner); errors.Is(err, os.ErrNotExist) {
				unix.Rmdir(filepath.Join(base, e.Name()))
			}
		}
	}
	return &pidsCgroup{home: home, base: base, token: rand.Text()[:8]}, nil
}

// name is the name of the nth cgroup: <server pid>-<token>-<n>. The
// server's PID lets a later server's start-up remove it once the server
// is gone; the token keeps it apart from a leftover of an earlier process
// that had the same PID, and from other runners of this process, whose
// sequences also start at 1 (issue 25: "mkdir …/agentls/18124-2: file
// exists").
func (c *pidsCgroup) name(n uint64) string {
	return strconv.Itoa(os.Getpid()) + "-" + c.token + "-" + strconv.FormatUint(n, 10)
}

// pidsMount returns where the cgroup-v1 pids controller is mounted.
func pidsMount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent maj:min root mountpoint opts ... - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, sf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(sf) < 3 || sf[0] != "cgroup" {
			continue
		}
		for _, o := range strings.Split(sf[2], ",") {
			if o == "pids" {
				return pf[4], nil
			}
		}
	}
	return "", errors.New("no cgroup-v1 pids hierarchy is mounted")
}

// ownCgroup returns this process's cgroup path in the v1 hierarchy of
// controller.
func ownCgroup(controller string) (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == controller {
				return parts[2], nil
			}
		}
	}
	return "", fmt.Errorf("not in a %s cgroup", controller)
}

// create makes a cgroup for one command with pids.max = max and returns
// its directory.
func (c *pidsCgroup) create(max uint64) (string, error) {
	var dir string
	for tries := 0; ; tries++ {
		dir = filepath.Join(c.base, c.name(c.seq.Add(1)))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		// Taken all the same (a leftover with our PID and, against the
		// odds, our token): the next number is free.
		if !errors.Is(err, os.ErrExist) || tries == 3 {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max, 10)), 0); err != nil {
		unix.Rmdir(dir)
		return "", err
	}
	return dir, nil
}

// remove deletes a command's cgroup once its processes are gone, killing
// any that are left (possible only without a PID namespace).
func (c *pidsCgroup) remove(dir string) {
	if unix.Rmdir(dir) == nil {
		return
	}
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			unix.Kill(pid, unix.SIGKILL)
		}
	}
	unix.Rmdir(dir) // may still be busy; the next server's start removes it
}
