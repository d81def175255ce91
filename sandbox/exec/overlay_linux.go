package exec

import (
	"errors"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
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

// errStageMount is an overlay the helper could not mount.
var errStageMount = errors.New("sandbox: the workspace cannot be staged")

// stageMount returns the overlay of spec's workspace.
func stageMount(s *Spec) child.Overlay {
	return child.Overlay{Target: s.Dir, Lowers: []string{s.Dir}, Upper: s.Stage.Upper, Work: s.Stage.Work}
}
