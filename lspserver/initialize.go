package lspserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/command"
)

// Version is reported in serverInfo; cmd sets it at link time.
var Version = "dev"

func (s *Server) initialize(ctx context.Context, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.InitializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	root, err := workspaceRoot(&p)
	if err != nil {
		return nil, invalidParams(err.Error())
	}
	caps := readCaps(&p.Capabilities)
	caps.clientName = p.ClientInfo.Name
	caps.clientVersion, _ = p.ClientInfo.Version.Get()
	caps.confirmsAnnotations = caps.annotations && caps.documentChanges &&
		confirmsAnnotations(caps.clientName, caps.clientVersion, caps.ownPlugin)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stateNew {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already called")
	}
	s.state, s.root, s.caps = stateInitialized, root, caps
	s.log.Info("Client", slog.String("name", caps.clientName), slog.String("version", caps.clientVersion),
		slog.Bool("confirmsAnnotations", caps.confirmsAnnotations))
	s.startWatch(root)
	s.cleanTemps(root)

	sync := protocol.TextDocumentSyncKindIncremental
	t := true
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: protocol.PositionEncodingKindUTF16,
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &t, Change: &sync, Save: protocol.Boolean(true),
			},
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{command.CodeActionKind},
			},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{
				WorkDoneProgressOptions: protocol.WorkDoneProgressOptions{WorkDoneProgress: &t},
				Commands:                slices.Clone(command.All),
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "agentls", Version: protocol.NewOptional(Version)},
	}, nil
}

func (s *Server) shutdown(ctx context.Context) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.stopRuns()
	s.drain(5 * time.Second)
	return nil, nil
}

// workspaceRoot picks the first workspace folder, else rootUri, else
// rootPath, and resolves symlinks so later containment checks compare real
// paths.
func workspaceRoot(p *protocol.InitializeParams) (string, error) {
	var dir string
	if folders, ok := p.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		dir = folders[0].URI.FsPath()
	} else if p.RootURI != nil && !p.RootURI.IsZero() {
		dir = p.RootURI.FsPath()
	} else if rp, ok := p.RootPath.Get(); ok && rp != "" {
		dir = rp
	}
	if dir == "" {
		return "", errorString("initialize: no workspace folder, rootUri or rootPath")
	}
	if !filepath.IsAbs(dir) {
		return "", errorString("initialize: workspace root is not absolute")
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", errorString("initialize: workspace root does not exist")
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", errorString("initialize: workspace root is not a directory")
	}
	return real, nil
}

func readCaps(c *protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if w := c.Workspace; w != nil {
		caps.applyEdit = w.ApplyEdit != nil && *w.ApplyEdit
		if d := w.DidChangeWatchedFiles; d != nil {
			caps.watchedFilesDynamic = d.DynamicRegistration != nil && *d.DynamicRegistration
		}
		if we := w.WorkspaceEdit; we != nil {
			caps.documentChanges = we.DocumentChanges != nil && *we.DocumentChanges
			caps.annotations = we.ChangeAnnotationSupport != nil
			caps.createFiles = slices.Contains(we.ResourceOperations, protocol.ResourceOperationKindCreate)
			caps.deleteFiles = slices.Contains(we.ResourceOperations, protocol.ResourceOperationKindDelete)
		}
	}
	if w := c.Window; w != nil {
		caps.workDoneProgress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
		caps.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if len(c.Experimental) > 0 {
		var exp command.Experimental
		if json.Unmarshal(c.Experimental, &exp) == nil {
			caps.saveDocuments = exp.Agentls.SaveDocuments
			caps.editText = exp.Agentls.EditText
			caps.runEvents = exp.Agentls.RunEvents
			caps.unattended = exp.Agentls.Unattended
			caps.autoApprove = exp.Agentls.AutoApprove
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(c.Experimental, &members) == nil {
			caps.ownPlugin = strings.HasPrefix(strings.TrimSpace(string(members["agentls"])), "{")
		}
	}
	return caps
}

type errorString string

func (e errorString) Error() string { return string(e) }

// uriFor returns the file URI of a workspace-relative slash path.
func (s *Server) uriFor(rel string) uri.URI {
	return uri.File(filepath.Join(s.root, filepath.FromSlash(rel)))
}
