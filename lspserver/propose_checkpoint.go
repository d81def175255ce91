package lspserver

import (
	"context"
	"log/slog"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/sandbox/stage"
	"github.com/agentls/agentls/tools"
)

// keeper is the run's edit proposer with checkpoints (A16): before a
// change is proposed, the file's content is kept in the session; after
// it, what the run left is recorded, so that the run can be reverted.
// The proposal itself is the proposer's, unchanged.
type keeper struct {
	s    *Server
	prop *proposer
	ws   *workspace
	run  *session.Run
	log  *slog.Logger
}

// edits is the run's tools.EditProposer: the proposer, with checkpoints
// when the run belongs to a session.
func (r *run) edits() tools.EditProposer {
	if r.srun == nil {
		return r.prop
	}
	return &keeper{s: r.prop.s, prop: r.prop, ws: r.ws, run: r.srun, log: r.log}
}

// Propose implements tools.EditProposer.
func (k *keeper) Propose(ctx context.Context, ch *tools.FileChange) (*tools.EditOutcome, error) {
	// The change was computed against ch.Old, and the proposer refuses it
	// as stale unless that is what the user has: so ch.Old is the content
	// to keep.
	k.keep(ctx, ch.Path, ch.Old, !ch.Create)
	out, err := k.prop.Propose(ctx, ch)
	k.changed(ctx, ch.Path, out != nil && out.Applied, ch.Old, !ch.Create)
	return out, err
}

// keep stores the old content; a file a limit keeps out is still changed,
// and the user is told it cannot be reverted.
func (k *keeper) keep(ctx context.Context, rel string, old []byte, exists bool) {
	if err := k.run.Keep(rel, old, exists); err != nil {
		k.log.Warn("Change not revertable", slog.String("path", rel), slog.String("err", err.Error()))
		k.s.logMessage(ctx, protocol.MessageTypeWarning, "agentls: "+err.Error()+"; this change cannot be reverted")
	}
}

// changed records what the proposal left: what the workspace shows now
// when it landed (open buffers first: that is what the user has), else
// the content it found.
func (k *keeper) changed(ctx context.Context, rel string, applied bool, old []byte, existed bool) {
	if !applied {
		k.run.Changed(rel, old, existed)
		return
	}
	now, err := k.ws.ReadFile(context.WithoutCancel(ctx), rel)
	k.run.Changed(rel, now, err == nil)
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
