package child

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// rlimitPreamble returns the shell code that the command string starts
// with: it sets the command's rlimits, hard and soft, in the shell itself
// before the command's first instruction, so every process of the
// command has them and none can raise them. The helper stays unlimited:
// a Go runtime cannot live under an address-space limit below its own
// reservations (1.7 GB at start), nor start threads under a full
// RLIMIT_NPROC. The preamble ends with "; " and shares the command's
// first line, so bash's line numbers in messages stay right; if the
// command's first tokens cannot follow it, the line is a syntax error and
// nothing runs, as without it.
//
// RLIMIT_NPROC, applied only inside a user namespace (where the kernel
// counts per namespace, the helper's threads included), bounds the
// command's processes and threads. Values are clamped to the server's own
// hard limits, which only root could raise. Core dumps are off.
func rlimitPreamble(shell string, l Limits, nproc bool) string {
	clamp := func(res int, v uint64) uint64 {
		var old syscall.Rlimit
		if syscall.Getrlimit(res, &old) == nil && old.Max < v {
			return old.Max
		}
		return v
	}
	kib := func(b uint64) uint64 { return max(1, b/1024) }
	type lim struct {
		bash, sh string // ulimit options of bash and of dash
		v        uint64
	}
	lims := []lim{
		{"-t", "-t", clamp(unix.RLIMIT_CPU, l.CPUSeconds)},
		{"-v", "-v", kib(clamp(unix.RLIMIT_AS, l.AddressSpaceBytes))},
		{"-f", "", kib(clamp(unix.RLIMIT_FSIZE, l.FileSizeBytes))},        // bash: KiB
		{"", "-f", max(1, clamp(unix.RLIMIT_FSIZE, l.FileSizeBytes)/512)}, // dash: 512-byte blocks
		{"-n", "-n", clamp(unix.RLIMIT_NOFILE, l.OpenFiles)},
		{"-c", "-c", 0},
	}
	if nproc {
		lims = append(lims, lim{"-u", "-p", clamp(unix.RLIMIT_NPROC, l.Processes+uint64(threadCount()))})
	}
	var b strings.Builder
	if filepath.Base(shell) == "bash" {
		b.WriteString("ulimit -HS")
		for _, x := range lims {
			if x.bash != "" {
				fmt.Fprintf(&b, " %s %d", x.bash, x.v)
			}
		}
	} else {
		sep := ""
		for _, x := range lims {
			if x.sh != "" {
				fmt.Fprintf(&b, "%sulimit %s %d", sep, x.sh, x.v)
				sep = " && "
			}
		}
	}
	b.WriteString(" || exit 125; ")
	return b.String()
}

// threadCount returns this process's number of threads.
func threadCount() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 8
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Threads:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return 8
}
