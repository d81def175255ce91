package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

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

var severities = map[string]int{"error": 1, "warning": 2, "info": 3, "hint": 4}

// publish sends the findings as textDocument/publishDiagnostics, one
// notification per file, and clears files that held agentls diagnostics
// from an earlier review but have none now.
func (f *findingSink) publish(ctx context.Context) {
	s := f.s
	byURI := map[string][]map[string]any{}
	for _, fd := range f.all() {
		u := s.uriFor(fd.Path).String()
		content, _ := f.ws.ReadFile(ctx, fd.Path)
		text := string(content)
		end := fd.EndLine
		if end == 0 {
			end = fd.Line
		}
		startOff, _ := offset(text, lspPosition(fd.Line-1, 0))
		endOff, _ := offset(text, lspPosition(end-1, 1<<31))
		byURI[u] = append(byURI[u], map[string]any{
			"range":    rangeOf(text, startOff, endOff),
			"severity": severities[fd.Severity],
			"source":   "agentls",
			"message":  fd.Message,
		})
	}
	s.mu.Lock()
	for u := range s.diagURIs {
		if _, ok := byURI[u]; !ok {
			byURI[u] = []map[string]any{}
		}
	}
	s.diagURIs = make(map[string]bool)
	for u, d := range byURI {
		if len(d) > 0 {
			s.diagURIs[u] = true
		}
	}
	s.mu.Unlock()
	uris := make([]string, 0, len(byURI))
	for u := range byURI {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	for _, u := range uris {
		raw, _ := json.Marshal(map[string]any{"uri": u, "diagnostics": byURI[u]})
		if err := s.conn.Notify(context.WithoutCancel(ctx), "textDocument/publishDiagnostics", jsonrpc2.RawMessage(raw)); err != nil {
			s.log.Warn("publishDiagnostics failed", slog.String("err", err.Error()))
		}
	}
}
