package lspserver

import (
	"context"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/tools"
)

// findingSink implements tools.FindingSink for a review run and publishes
// the findings as diagnostics (E5).
type findingSink struct {
	s  *Server
	ws *workspace

	mu       sync.Mutex // guards findings
	findings []tools.Finding
}

// Report keeps f if its file is in the workspace and its lines exist
// (tools.CheckFinding).
func (f *findingSink) Report(ctx context.Context, fd tools.Finding) error {
	fd, _, err := tools.CheckFinding(ctx, f.s.root, f.ws, fd)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, old := range f.findings {
		if old == fd {
			return nil
		}
	}
	f.findings = append(f.findings, fd)
	return nil
}

func (f *findingSink) all() []tools.Finding {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tools.Finding(nil), f.findings...)
}

var severities = map[string]protocol.DiagnosticSeverity{
	"error": protocol.DiagnosticSeverityError, "warning": protocol.DiagnosticSeverityWarning,
	"info": protocol.DiagnosticSeverityInformation, "hint": protocol.DiagnosticSeverityHint,
}

// publish sends the findings as textDocument/publishDiagnostics, one
// notification per file, and clears files that held agentls diagnostics
// from an earlier review but have none now. Each finding then follows its
// lines as the file changes (diagnostics_track.go).
func (f *findingSink) publish(ctx context.Context) {
	s := f.s
	byURI := map[uri.URI][]trackedDiag{}
	for _, fd := range f.all() {
		u := s.uriFor(fd.Path)
		content, _ := f.ws.ReadFile(ctx, fd.Path)
		end := fd.EndLine
		if end == 0 {
			end = fd.Line
		}
		byURI[u] = append(byURI[u], newTracked(string(content), fd.Line-1, end-1, protocol.Diagnostic{
			Severity: severities[fd.Severity],
			Source:   protocol.NewOptional("agentls"),
			Message:  protocol.String(fd.Message),
		}))
	}
	s.replaceDiagnostics(ctx, byURI)
}
