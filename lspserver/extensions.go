package lspserver

import (
	"context"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/agentrun"
	"github.com/agentls/agentls/sandbox"
)

// Extensions are the user's hooks and MCP servers of the workspace (A13,
// B6), as package agentrun takes them.
type Extensions = agentrun.Extensions

// extensions starts the connection's extensions at its first run, asking
// the user through the editor about project entries nobody trusted yet.
// Without [Options.StartExtensions] there are none.
type extensions struct {
	once sync.Once
	ext  Extensions
}

func (s *Server) extensions(ctx context.Context) Extensions {
	s.ext.once.Do(func() {
		if s.opts.StartExtensions != nil {
			s.ext.ext = s.opts.StartExtensions(ctx, s.root, approver{s})
			s.warnExtensions(ctx)
			if w, ok := s.ext.ext.(warner); ok {
				w.OnWarning(s.warnUser)
			}
		}
	})
	return s.ext.ext
}

// closeExtensions stops what extensions started.
func (s *Server) closeExtensions() {
	s.ext.once.Do(func() {}) // no start after this
	if s.ext.ext != nil {
		_ = s.ext.ext.Close()
	}
}

// warner is extensions that tell what goes wrong while they run (a hook
// that failed, an MCP server that did not start or lost its tools);
// [Extensions] may implement it. Each warning reaches the user as
// warn.go says, in the run it happened in.
type warner interface {
	OnWarning(func(ctx context.Context, msg string, attention bool))
}

// problems is what extensions that found problems while loading offer
// ([Extensions] may implement it): entries skipped, unknown keys.
type problems interface{ Problems() []string }

// warnExtensions shows the user what went wrong loading the hooks and
// MCP servers (A17: unknown keys warn), control characters visible: the
// text may quote a project file.
func (s *Server) warnExtensions(ctx context.Context) {
	p, ok := s.ext.ext.(problems)
	if !ok {
		return
	}
	ws := p.Problems()
	if len(ws) == 0 {
		return
	}
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = "- " + sandbox.VisibleText(w)
	}
	s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: hooks and MCP servers:\n"+strings.Join(lines, "\n"))
}
