package exec

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// helperBinFD is where a dedicated helper binary's descriptor lands in the
// child: right after the spec and status pipes, in ExtraFiles, so that
// the child's descriptor shuffle before exec cannot reuse its number.
const helperBinFD = child.StatusFD + 1

// helperBin is a dedicated helper binary ([Options.Helper]), opened once.
// Every helper is started from this descriptor (/proc/self/fd/N), so a
// file renamed over the path after the checks is never run. A nil
// *helperBin means the program re-executes itself (/proc/self/exe).
type helperBin struct {
	path string   // as given, for logs
	file *os.File // O_PATH

	mu  sync.Mutex // guards zyg
	zyg *zygote    // started on first use; replaced when it died
}

// openHelperBin opens the helper binary at path and checks that nobody
// but its owner can have changed it: a regular file, owned by this user
// or root, not writable by group or others.
func openHelperBin(path string) (*helperBin, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if err := checkHelperFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &helperBin{path: path, file: f}, nil
}

// checkHelperFile applies openHelperBin's checks to the opened file.
func checkHelperFile(f *os.File) error {
	return checkTrusted(int(f.Fd()), unix.S_IFREG, true)
}

// checkTrusted checks that fd is of type typ (unix.S_IFREG, S_IFDIR),
// owned by the effective user (or root, with rootOK) and not writable by
// group or others: nobody but its owner can have changed it. The helper
// binary and the probe cache both trust a file only so.
func checkTrusted(fd int, typ uint32, rootOK bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	switch {
	case st.Mode&unix.S_IFMT != typ && typ == unix.S_IFREG:
		return errors.New("not a regular file")
	case st.Mode&unix.S_IFMT != typ:
		return errors.New("wrong file type")
	case st.Mode&0o022 != 0:
		return fmt.Errorf("writable by group or others (mode %#o)", st.Mode&0o7777)
	case int(st.Uid) != os.Geteuid() && !(rootOK && st.Uid == 0):
		if rootOK {
			return fmt.Errorf("owned by uid %d, neither this user nor root", st.Uid)
		}
		return fmt.Errorf("owned by uid %d, not this user", st.Uid)
	}
	return nil
}

// execPath is what the child executes.
func (b *helperBin) execPath() string {
	if b == nil {
		return "/proc/self/exe"
	}
	return "/proc/self/fd/" + strconv.Itoa(helperBinFD)
}

// extraFiles are the child's descriptors from fd 3 on.
func (b *helperBin) extraFiles(specR, statusW *os.File) []*os.File {
	if b == nil {
		return []*os.File{specR, statusW}
	}
	return []*os.File{specR, statusW, b.file}
}

// close releases the descriptor.
func (b *helperBin) close() {
	if b != nil {
		b.file.Close()
	}
}

// pickHelper opens [Options.Helper] and shakes hands with it (unless the
// probe cache remembers this very binary doing so); on any failure it
// logs why at debug and returns nil: the program re-executes itself, with
// the same layers. It returns the probe cache for the helper chosen, nil
// after a fallback (a transient failure is not cached).
func pickHelper(path string, log *slog.Logger) (*helperBin, *probeCache) {
	if path == "" {
		return nil, openProbeCache(nil)
	}
	var c *probeCache
	b, err := openHelperBin(path)
	if err == nil {
		if c = openProbeCache(b); c == nil || !c.hit {
			err = handshake(b)
		}
		if err != nil {
			b.close()
		}
	}
	if err != nil {
		log.Debug("Sandbox helper binary not used; re-executing the program instead",
			slog.String("helper", path), slog.String("err", err.Error()))
		return nil, nil
	}
	log.Debug("Sandbox helper binary in use", slog.String("helper", path))
	return b, c
}

// handshake starts the helper with no namespaces and checks that it is a
// helper of this very version.
func handshake(b *helperBin) error {
	st, err := probeHelper(b, 0, nil, "")
	if err != nil {
		return fmt.Errorf("no answer: %w", err)
	}
	if want := child.Version(); st.Version != want {
		return fmt.Errorf("version %q, want %q", st.Version, want)
	}
	return nil
}
