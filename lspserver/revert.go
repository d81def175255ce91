package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// revertCommand is agentls.revert (A16): it restores the files a run
// changed from the run's checkpoint, through workspace/applyEdit like
// every other change, and refuses each file the user (or a later run)
// changed since, as stale. The revert is itself a run of the session,
// recorded with its own checkpoint: it can be reverted in turn.
func (s *Server) revertCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	var a command.RevertArgs
	switch len(args) {
	case 0:
	case 1:
		if err := decodeArg(args[0], &a); err != nil {
			return nil, invalidParams(command.Revert + ` takes {"runId"?, "sessionId"?}: ` + err.Error())
		}
	default:
		return nil, invalidParams(command.Revert + " takes at most one argument")
	}
	return rawResult(s.revert(ctx, &a))
}

func (s *Server) revert(ctx context.Context, a *command.RevertArgs) (*command.RevertResult, error) {
	sess, n, err := s.revertSession(ctx, a)
	if err != nil {
		return nil, err
	}
	defer sess.Release() // after the run's end
	if _, err := sess.RevertTarget(n); err != nil {
		return nil, revertError(err)
	}
	r, err := s.newRun(ctx, runRequest{sess: sess, revert: n})
	if err != nil {
		return nil, err
	}
	defer r.close()
	// Look again now that it is our turn: a run queued before us may have
	// reverted it, or changed it.
	target, err := sess.RevertTarget(n)
	if err != nil {
		r.ar.End(&agent.Outcome{Status: agent.StatusFailed, Summary: err.Error()})
		return nil, revertError(err)
	}
	log := r.ar.Log.With(slog.String("reverts", target.ID))
	sr, prop := r.ar.Session, r.prop
	k := &keeper{Checkpoint: r.ar.Checkpoint(), s: s, prop: prop, ws: r.ws, log: log}
	k.Log = log
	res := &command.RevertResult{SessionID: sess.ID, RunID: sr.ID, Reverted: target.ID,
		Restored: []string{}, Stale: []command.RevertedFile{}, Failed: []command.RevertedFile{}}
	for _, c := range target.Changes {
		stale, reason := s.revertFile(ctx, k, sess, target.N, c)
		switch {
		case reason == "":
			res.Restored = append(res.Restored, c.Path)
		case stale:
			res.Stale = append(res.Stale, command.RevertedFile{Path: c.Path, Reason: reason})
		default:
			res.Failed = append(res.Failed, command.RevertedFile{Path: c.Path, Reason: reason})
		}
		if ctx.Err() != nil {
			break
		}
	}
	if left := prop.Flush(ctx); len(left) > 0 {
		log.Info("Reverted buffers not saved", slog.Any("paths", left))
	}
	sr.Reverted(target.N, res.Restored, pathsOf(res.Stale), pathsOf(res.Failed))
	status := agent.StatusDone
	if ctx.Err() != nil {
		status = agent.StatusCancelled
	}
	summary := fmt.Sprintf("reverted %s: %d restored, %d stale, %d failed", target.ID, len(res.Restored), len(res.Stale), len(res.Failed))
	if n := refusedCount(res.Failed); n > 0 {
		summary += fmt.Sprintf(" (%d refused and left untouched: a symlink, a control path or an unsafe file on the way)", n)
	}
	r.ar.End(&agent.Outcome{Status: status, Summary: summary})
	log.Info("Run reverted", slog.Int("restored", len(res.Restored)), slog.Int("stale", len(res.Stale)), slog.Int("failed", len(res.Failed)))
	return res, nil
}

// revertSession finds the session and run number a revert is about; run
// 0 means the session's last run with changes.
func (s *Server) revertSession(ctx context.Context, a *command.RevertArgs) (*session.Session, int, error) {
	st := s.sessions(ctx)
	id, n := a.SessionID, 0
	if a.RunID != "" {
		sid, num, err := session.ParseRunID(a.RunID)
		if err != nil {
			return nil, 0, failf(ReasonSessionNotFound, err.Error())
		}
		if id != "" && !strings.HasPrefix(sid, id) && !strings.HasPrefix(id, sid) {
			return nil, 0, invalidParams(fmt.Sprintf("run %s is not of session %s", a.RunID, id))
		}
		id, n = sid, num
	}
	if id == "" {
		latest, err := st.Latest()
		if err != nil {
			return nil, 0, failf(ReasonNothingToRevert, err.Error())
		}
		id = latest
	}
	sess, err := s.findSession(ctx, id)
	return sess, n, err
}

func revertError(err error) error {
	if errors.Is(err, session.ErrNoRun) {
		return failf(ReasonSessionNotFound, err.Error())
	}
	return failf(ReasonNothingToRevert, err.Error())
}

// revertFile restores one file as it was before run n, unless it changed
// since. It returns "" when restored, else why not and whether that is
// because the file is stale. A path [revertGuard] refuses is neither read
// nor touched (issue 21); one that fails the guard once the editor has
// acted changed under the revert, and is not called restored.
func (s *Server) revertFile(ctx context.Context, k *keeper, sess *session.Session, n int, c session.ChangeInfo) (stale bool, reason string) {
	if err := revertGuard(k.ws.root, c.Path); err != nil {
		k.log.Warn("Revert refused", slog.String("path", c.Path), slog.String("reason", err.Error()))
		s.logMessage(ctx, protocol.MessageTypeWarning, "agentls: revert "+err.Error())
		return false, err.Error()
	}
	stale, reason = s.restoreFile(ctx, k, sess, n, c)
	if reason != "" {
		return stale, reason
	}
	var r *revertRefusal
	if err := revertGuard(k.ws.root, c.Path); errors.As(err, &r) {
		k.log.Warn("Path changed during the revert", slog.String("path", c.Path), slog.String("reason", err.Error()))
		s.logMessage(ctx, protocol.MessageTypeWarning, "agentls: revert: "+c.Path+" "+r.why+" now")
		return false, c.Path + " changed while the editor restored it: it " + r.why + " now; check it and where it leads yourself"
	}
	return false, ""
}

// restoreFile is [Server.revertFile] once the path passed the guard.
func (s *Server) restoreFile(ctx context.Context, k *keeper, sess *session.Session, n int, c session.ChangeInfo) (stale bool, reason string) {
	cur, err := k.ws.ReadFile(ctx, c.Path)
	exists := err == nil
	switch {
	case c.After == "":
		return true, "the run ended before its change was confirmed; check the file yourself"
	case c.Gone() && exists:
		return true, "it was created again since the run"
	case !c.Gone() && !exists:
		return true, "it was deleted since the run"
	case !c.Gone() && session.Hash(cur) != c.After:
		return true, "it changed since the run"
	}
	if c.Create {
		return false, k.delete(ctx, c.Path, cur)
	}
	old, err := sess.Old(n, c)
	if err != nil {
		return false, err.Error()
	}
	ch := &tools.FileChange{Path: c.Path, Old: cur, New: old, Create: !exists, Tool: "revert", Preapproved: true}
	out, err := k.Propose(ctx, ch)
	switch {
	case err != nil:
		return false, err.Error()
	case out.Stale:
		return true, out.Reason
	case !out.Applied:
		return false, out.Reason
	case len(out.Hunks) > 0 && !allApplied(out.Hunks):
		return false, "only part of it was restored: " + out.Reason
	}
	return false, ""
}

func allApplied(hs []tools.HunkOutcome) bool {
	for _, h := range hs {
		if !h.Applied {
			return false
		}
	}
	return true
}

func pathsOf(fs []command.RevertedFile) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	return out
}

// keeper is a revert's proposer: the run's checkpoint over the LSP
// proposer, which can also delete a file the reverted run created.
type keeper struct {
	*agentrun.Checkpoint
	s    *Server
	prop *proposer
	ws   *workspace
	log  *slog.Logger
}

// delete removes a file the reverted run created, through
// workspace/applyEdit (a DeleteFile operation), keeping its content in
// the revert's checkpoint first. It returns "" when the file is gone.
func (k *keeper) delete(ctx context.Context, rel string, cur []byte) string {
	s := k.s
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	if !caps.applyEdit || !caps.documentChanges || !caps.deleteFiles {
		return "the editor cannot delete files; delete " + rel + " yourself"
	}
	k.Keep(ctx, rel, cur, true)
	reason := k.proposeDelete(ctx, rel)
	if reason != "" {
		k.Run.Changed(rel, cur, true)
		return reason
	}
	k.Run.Changed(rel, nil, false)
	return ""
}

func (k *keeper) proposeDelete(ctx context.Context, rel string) string {
	return k.prop.deleteFile(ctx, rel, "agentls: revert "+rel, "agentls: delete "+rel+" (the reverted run created it)")
}
