package child

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// diskPoll is how often the helper adds up what the command wrote.
const diskPoll = 100 * time.Millisecond

// The disk budget (S6): RLIMIT_FSIZE bounds each file, not their number,
// so the helper also bounds the bytes that all of the command's processes
// write to disk together. It reads the kernel's I/O accounting
// (/proc/PID/io: write_bytes less cancelled_write_bytes, the bytes the
// processes dirtied in the page cache of disk-backed files, so pipes,
// /dev/null and tmpfs do not count) of itself and of every live
// descendant, parents before children, every diskPoll, and kills the
// command once the sum passes the budget. A process's figure includes its
// reaped children's, so what exited is counted in its parent, and the
// walk order never counts a process twice. fallocate, which claims disk
// without writing, is refused by seccomp (EOPNOTSUPP; callers fall back
// to writing). What slips through: the last diskPoll of writing before
// the kill (bounded by the disk's speed), and processes whose parent
// ignores SIGCHLD, which the kernel reaps without adding them up.

// diskWatch is a running budget check.
type diskWatch struct {
	exceeded atomic.Bool
	stop     chan struct{}
	done     chan struct{}
}

// dirPoll is how many diskPolls pass between two walks of the disk
// directories: a walk costs more than reading /proc.
const dirPoll = 3

// watchDisk starts checking the command's writes against limit, from the
// I/O accounting (with accounting) and from what dirs hold (S11: a staged
// command's upper layer and its temp dir, which a process the kernel
// reaps without adding it up cannot hide); kill stops the command.
func watchDisk(limit uint64, accounting bool, dirs []string, kill func()) *diskWatch {
	w := &diskWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(diskPoll)
		defer t.Stop()
		for tick := 1; ; tick++ {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			over := accounting && treeWritten(os.Getpid()) > limit
			if !over && len(dirs) > 0 && tick%dirPoll == 0 {
				over = dirsUsage(dirs, limit) > limit
			}
			if over {
				w.exceeded.Store(true)
				kill()
				return
			}
		}
	}()
	return w
}

// end stops the check and reports whether the budget was exceeded.
func (w *diskWatch) end() bool {
	close(w.stop)
	<-w.done
	return w.exceeded.Load()
}

// treeWritten adds up the disk writes of root and its live descendants,
// breadth first.
func treeWritten(root int) uint64 {
	var sum uint64
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		sum += diskWritten(pid)
		queue = append(queue, childrenOf(pid)...)
	}
	return sum
}

// diskWritten returns write_bytes less cancelled_write_bytes of pid's
// thread group, 0 if it is gone.
func diskWritten(pid int) uint64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0
	}
	defer f.Close()
	var w, c uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		switch k {
		case "write_bytes":
			w = n
		case "cancelled_write_bytes":
			c = n
		}
	}
	if c > w {
		return 0
	}
	return w - c
}

// childrenOf lists pid's children (CONFIG_PROC_CHILDREN).
func childrenOf(pid int) []int {
	base := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, _ := os.ReadDir(base)
	var out []int
	for _, t := range tasks {
		b, _ := os.ReadFile(base + t.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// dirsUsage adds up the disk blocks of everything beneath dirs, symlinks
// not followed, stopping once past limit.
func dirsUsage(dirs []string, limit uint64) uint64 {
	var sum uint64
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			var st unix.Stat_t
			if err == nil && unix.Lstat(p, &st) == nil {
				sum += uint64(st.Blocks) * 512
			}
			if sum > limit {
				return filepath.SkipAll
			}
			return nil
		})
	}
	return sum
}
