package agentrun

import (
	"context"
	"log/slog"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/sandbox/stage"
	"github.com/agentls/agentls/tools"
)

// Checkpoint is an edit proposer with checkpoints (A16): before a change
// is proposed, the file's content is kept in the run's session; after it,
// what the run left is recorded, so that the run can be reverted. The
// proposal itself is the front-end's, unchanged.
type Checkpoint struct {
	Edits     tools.EditProposer
	Workspace tools.Workspace // what the user has: open buffers first
	Run       *session.Run
	Log       *slog.Logger
	Warn      func(ctx context.Context, msg string)
}

// Checkpoint is the run's front-end proposer with the run's checkpoint.
func (r *Run) Checkpoint() *Checkpoint {
	return &Checkpoint{Edits: r.o.Edits, Workspace: r.o.Workspace, Run: r.Session, Log: r.Log, Warn: r.o.FrontEnd.Warn}
}

// Propose implements tools.EditProposer.
func (k *Checkpoint) Propose(ctx context.Context, ch *tools.FileChange) (*tools.EditOutcome, error) {
	// The change was computed against ch.Old, and the proposer refuses it
	// as stale unless that is what the user has: so ch.Old is the content
	// to keep.
	k.Keep(ctx, ch.Path, ch.Old, !ch.Create)
	out, err := k.Edits.Propose(ctx, ch)
	k.changed(ctx, ch.Path, out != nil && out.Applied, ch.Old, !ch.Create)
	return out, err
}

// NoteStale passes on a tool's stale refusal of a change it never
// proposed, for the run's counts (E18), when the front-end's proposer
// counts them.
func (k *Checkpoint) NoteStale(rel string) {
	if n, ok := k.Edits.(interface{ NoteStale(rel string) }); ok {
		n.NoteStale(rel)
	}
}

// Keep stores the old content; a file a limit keeps out is still changed,
// and the user is told it cannot be reverted.
func (k *Checkpoint) Keep(ctx context.Context, rel string, old []byte, exists bool) {
	if err := k.Run.Keep(rel, old, exists); err != nil {
		k.Log.Warn("Change not revertable", slog.String("path", rel), slog.String("err", err.Error()))
		k.Warn(ctx, "agentls: "+err.Error()+"; this change cannot be reverted")
	}
}

// changed records what the proposal left: what the workspace shows now
// when it landed (open buffers first: that is what the user has), else
// the content it found.
func (k *Checkpoint) changed(ctx context.Context, rel string, applied bool, old []byte, existed bool) {
	if !applied {
		k.Run.Changed(rel, old, existed)
		return
	}
	now, err := k.Workspace.ReadFile(context.WithoutCancel(ctx), rel)
	k.Run.Changed(rel, now, err == nil)
}

// commandCheckpoint keeps what a staged command's merge changes in the
// run's checkpoint (S9): the merge's file states, as the session takes
// them.
type commandCheckpoint struct{ run *session.Run }

// KeepAll implements tools.Checkpoint.
func (c commandCheckpoint) KeepAll(files []stage.Before) []error {
	kept := make([]session.Kept, len(files))
	for i, f := range files {
		kept[i] = session.Kept{Path: f.Path, Old: f.Old, Exists: f.Exists, TooBig: f.TooBig}
	}
	return c.run.KeepAll(kept)
}

// ChangedAll implements tools.Checkpoint.
func (c commandCheckpoint) ChangedAll(files []stage.After) {
	landed := make([]session.Landed, len(files))
	for i, f := range files {
		landed[i] = session.Landed{Path: f.Path, Hash: f.Hash, Exists: f.Exists}
	}
	c.run.ChangedAll(landed)
}
