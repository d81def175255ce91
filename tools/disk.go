package tools

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/sandbox"
)

// DiskProposer is an [EditProposer] for surfaces without an editor
// (`agentls call`): it writes the whole change to disk atomically through
// an os.Root. It shows nothing to the user, so the gateway asks the
// Approver with the diff before proposing a change the policy did not
// allow outright; a change that is not [FileChange.Preapproved] by then is
// refused. Without an editor there are no per-hunk answers: the change
// lands whole or not at all.
type DiskProposer struct {
	Root string // the workspace root
}

// ShowsNothing marks d as a [BlindProposer].
func (*DiskProposer) ShowsNothing() {}

// Propose implements [EditProposer].
func (d *DiskProposer) Propose(_ context.Context, ch *FileChange) (*EditOutcome, error) {
	if _, own := sandbox.IsControlPath(ch.Path); own { // E15, whoever calls
		return &EditOutcome{Reason: ch.Path + " is one of agentls' own control files"}, nil
	}
	root, err := sandbox.OpenRoot(d.Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	cur, err := root.ReadFile(ch.Path, sandbox.MaxFileBytes)
	exists := err == nil
	switch {
	case ch.Create && exists, !ch.Create && !exists, !ch.Create && string(cur) != string(ch.Old):
		return &EditOutcome{Stale: true, Reason: ch.Path + " changed since it was read"}, nil
	}
	if !ch.Preapproved {
		return &EditOutcome{Reason: "nobody approved the change"}, nil
	}
	if err := root.WriteFileAtomic(ch.Path, ch.New, 0o644); err != nil {
		return &EditOutcome{Reason: fmt.Sprintf("write %s: %v", ch.Path, err)}, nil
	}
	return &EditOutcome{Applied: true, Saved: true, Hunks: []HunkOutcome{{Index: 0, Lines: "all", Applied: true}}}, nil
}

// DiskWorkspace is a [Workspace] with no editor: it reads the disk through
// an os.Root opened per read.
func DiskWorkspace(root string) Workspace { return diskWorkspace(root) }

type diskWorkspace string

// Buffered reports that no file has an editor buffer: a search may read
// the disk directly (issue 27 item 1).
func (diskWorkspace) Buffered(string) bool { return false }

func (d diskWorkspace) ReadFile(_ context.Context, rel string) ([]byte, error) {
	r, err := sandbox.OpenRoot(string(d))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(rel, sandbox.MaxFileBytes)
}
