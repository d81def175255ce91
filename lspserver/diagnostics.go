package lspserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/sandbox"
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

// Report keeps f if its file is in the workspace and its lines exist.
func (f *findingSink) Report(ctx context.Context, fd tools.Finding) error {
	rel, err := sandbox.ResolvePath(f.s.root, fd.Path)
	if err != nil {
		return fmt.Errorf("%s is not a file in the workspace", fd.Path)
	}
	content, err := f.ws.ReadFile(ctx, rel)
	if err != nil {
		return fmt.Errorf("%s cannot be read", rel)
	}
	lines := strings.Count(string(content), "\n")
	if len(content) > 0 && !strings.HasSuffix(string(content), "\n") {
		lines++
	}
	if fd.Line < 1 || fd.Line > lines {
		return fmt.Errorf("%s has %d lines; line %d does not exist", rel, lines, fd.Line)
	}
	if fd.EndLine != 0 && (fd.EndLine < fd.Line || fd.EndLine > lines) {
		return fmt.Errorf("end_line %d is outside %d-%d", fd.EndLine, fd.Line, lines)
	}
	switch fd.Severity {
	case "error", "warning", "info", "hint":
	default:
		fd.Severity = "warning"
	}
	fd.Path = rel
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
