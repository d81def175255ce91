package lspserver

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/watch"
)

// WatchOptions turns on watching the workspace with fsnotify (E10).
type WatchOptions struct {
	// PolicyFiles are files outside the workspace whose changes reload the
	// policy (the user's policy file); .agentls/ inside it is always
	// watched.
	PolicyFiles []string
	// MaxDirs bounds the watched directories; zero means
	// watch.DefaultMaxDirs.
	MaxDirs int
}

// File changes reach the server from two sources, used together: the
// fsnotify watch (when [Options.Watch] is set) and the client's
// workspace/didChangeWatchedFiles, registered dynamically where the client
// offers it. Each change wakes every waiter on the document store, so a
// proposal waiting for its question re-hashes its file and is refused as
// stale when the content moved (T17); a change under .agentls/ or to a
// policy file reloads the policy.

// startWatch starts the fsnotify watch of the root in the background, so
// that initialize answers at once; the session's end stops it.
func (s *Server) startWatch(root string) {
	o := s.opts.Watch
	if o == nil {
		return
	}
	s.bg.Go(func() {
		w, err := watch.New(root, &watch.Options{
			OnChange:   func(p string) { s.pathChanged(p) },
			OnOverflow: func() { s.fileChanged("") },
			Files:      o.PolicyFiles,
			MaxDirs:    o.MaxDirs,
			Logger:     s.log,
		})
		if err != nil {
			s.log.Warn("No file watch", slog.String("err", err.Error()))
			s.logMessage(s.connCtx, protocol.MessageTypeWarning, "agentls: cannot watch the workspace ("+err.Error()+
				"); changes are still checked right before each edit is sent")
			return
		}
		s.log.Debug("Watching the workspace", slog.Int("dirs", w.Dirs()), slog.Bool("full", w.Full()))
		if w.Full() {
			s.logMessage(s.connCtx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: the file watch covers %d directories of the workspace, not all; "+
				"changes elsewhere are still checked right before each edit is sent", w.Dirs()))
		}
		<-s.connCtx.Done()
		_ = w.Close()
	})
}

// pathChanged maps an absolute path from the watch to the workspace.
func (s *Server) pathChanged(p string) {
	if s.isPolicyFile(p) {
		s.policyChanged()
	}
	rel, err := filepath.Rel(s.root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	s.fileChanged(filepath.ToSlash(rel))
}

// fileChanged records a change of rel (a workspace-relative slash path, or
// "" for "anything may have changed"): waiters on the document store wake
// and re-check what they read, and policy files reload.
func (s *Server) fileChanged(rel string) {
	if rel == "" || rel == ".agentls" || strings.HasPrefix(rel, ".agentls/") {
		s.policyChanged()
	}
	s.docs.touch()
	if rel == "" {
		s.allChanged(s.connCtx)
	} else if u := s.uriFor(rel); !s.isOpen(u) {
		s.documentChanged(s.connCtx, u) // an open one follows its buffer
	}
}

func (s *Server) isPolicyFile(p string) bool {
	if s.opts.Watch == nil {
		return false
	}
	for _, f := range s.opts.Watch.PolicyFiles {
		if f != "" && filepath.Clean(f) == p {
			return true
		}
	}
	return false
}

// didChangeWatchedFiles handles the client's file events.
func (s *Server) didChangeWatchedFiles(params jsonrpc2.RawMessage) error {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(params, &p); err != nil {
		return err
	}
	for _, c := range p.Changes {
		if c.URI.IsZero() || !strings.HasPrefix(string(c.URI), "file:") {
			continue
		}
		s.pathChanged(filepath.Clean(c.URI.FsPath()))
	}
	return nil
}

// watchedFilesRegistration is the registration of
// workspace/didChangeWatchedFiles for every file of the workspace.
const watchedFilesRegistration = `{"watchers":[{"globPattern":"**/*"}]}`

// initialized starts the policy reloads (the first load gives a later
// broken edit a good policy to fall back on) and registers for the
// client's file events where it offers dynamic registration. Both run in
// the background: a notification must never wait on the client.
func (s *Server) initialized() {
	s.initOnce.Do(s.startBackground)
}

// startBackground starts the connection's background work: the policy
// reloads and, where the client offers it, the file-event registration.
func (s *Server) startBackground() {
	s.mu.Lock()
	dynamic := s.caps.watchedFilesDynamic
	s.mu.Unlock()
	s.bg.Go(s.reloadPolicies)
	if !dynamic {
		return
	}
	s.bg.Go(func() {
		ctx, cancel := context.WithTimeout(s.connCtx, 30*time.Second)
		defer cancel()
		params := &protocol.RegistrationParams{Registrations: []protocol.Registration{{
			ID: "agentls.watchedFiles", Method: "workspace/didChangeWatchedFiles",
			RegisterOptions: protocol.LSPAny(watchedFilesRegistration),
		}}}
		if err := s.clientCall(ctx, "client/registerCapability", params, nil); err != nil {
			s.log.Info("Client refused file watch registration", slog.String("err", err.Error()))
		}
	})
}

// showMessage sends window/showMessage; failures only go to the log.
func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	params := &protocol.ShowMessageParams{Type: typ, Message: msg}
	if err := s.conn.Notify(context.WithoutCancel(ctx), "window/showMessage", params); err != nil {
		s.log.Debug("showMessage failed", slog.String("err", err.Error()))
	}
}
