package exec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Staged execution (S9): the command's mount namespace shows the
// workspace as an overlay whose lower layer is the workspace and whose
// upper layer is a per-command stage outside it, so the command sees its
// own writes and the host none of them until the caller merges the
// stage's change set (sandbox/stage). Unprivileged overlayfs (Linux 5.11
// and later, in the user namespace that owns the mount namespace) keeps
// its marks in user.* extended attributes ("userxattr"); a deletion is a
// 0:0 character device in the upper layer, a replaced directory an
// opaque one. A file whose owner is not mapped in the command's user
// namespace cannot be copied up: writing it fails with EOVERFLOW or
// EPERM, and the command sees the error (nothing changes).
//
// The same mount serves warm build caches (S11): the user's own cache is
// a read-only lower layer beneath the workspace's writable one, so the
// first build of a workspace is warm and whatever it writes stays in
// that workspace.

// overlayMount is one overlay: Lowers (read-only, topmost first), Upper
// and Work (on one file system, writable) mounted on Target.
type overlayMount struct {
	Target string   `json:"target"`
	Lowers []string `json:"lowers"`
	Upper  string   `json:"upper"`
	Work   string   `json:"work"`
}

// options is the overlay's mount data. Paths escape the characters
// overlayfs splits on. volatile: the layers are thrown away after the
// command, so the overlay never syncs its upper file system (without it,
// tearing the command's mount namespace down runs syncfs on the whole
// file system that holds the stage).
func (o *overlayMount) options() string {
	esc := strings.NewReplacer(`\`, `\\`, ",", `\,`, ":", `\:`)
	lowers := make([]string, len(o.Lowers))
	for i, l := range o.Lowers {
		lowers[i] = esc.Replace(l)
	}
	return "lowerdir=" + strings.Join(lowers, ":") + ",upperdir=" + esc.Replace(o.Upper) +
		",workdir=" + esc.Replace(o.Work) + ",userxattr,volatile"
}

func (o *overlayMount) mount() error {
	if err := unix.Mount("overlay", o.Target, "overlay", unix.MS_NOSUID|unix.MS_NODEV, o.options()); err != nil {
		return fmt.Errorf("%s %s: %w", stageMountError, o.Target, err)
	}
	return nil
}

// stageMountError begins the helper's report of an overlay it could not
// mount: nothing ran, and [Runner.Run] runs the command unstaged.
const stageMountError = "mounting the staged view of"

// errStageMount is an overlay the helper could not mount.
var errStageMount = errors.New("sandbox: the workspace cannot be staged")

// probe mounts o and checks that a file written through it lands in the
// upper layer, not the lower; it returns why not ("" when it works).
func (o *overlayMount) probe() string {
	if err := o.mount(); err != nil {
		return err.Error()
	}
	if err := os.WriteFile(filepath.Join(o.Target, "probe"), []byte("x"), 0o600); err != nil {
		return "writing through the overlay: " + err.Error()
	}
	if _, err := os.Stat(filepath.Join(o.Upper, "probe")); err != nil {
		return "a write through the overlay did not reach its upper layer"
	}
	return ""
}

// stageMount returns the overlay of spec's workspace.
func stageMount(s *Spec) overlayMount {
	return overlayMount{Target: s.Dir, Lowers: []string{s.Dir}, Upper: s.Stage.Upper, Work: s.Stage.Work}
}
