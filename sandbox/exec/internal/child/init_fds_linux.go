package child

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeOnExecFrom marks every descriptor from first up close-on-exec
// (S6): whatever the server inherited without O_CLOEXEC, and passed on to
// the helper, must not reach the command, which could read or write it
// past every file-system rule (Landlock checks opens, not descriptors).
// The helper keeps using its own (the spec and status pipes); the
// command gets 0, 1 and 2 only. close_range(2) does it in one call
// (Linux 5.11); older kernels get a loop over /proc/self/fd.
func closeOnExecFrom(first int) error {
	if unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return nil
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd >= first {
			unix.CloseOnExec(fd) // the directory's own descriptor is closed already: EBADF
		}
	}
	return nil
}
