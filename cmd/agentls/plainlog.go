package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
)

// plainHandler writes log records at or above level as one line each for
// a person, not a log parser: "agentls: warning: MCP server's tools
// removed — server: crashy; why: crashed again after its restart". The
// values come from config files, servers and hooks: their control
// characters are shown (T22).
type plainHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Level
	attrs []slog.Attr
}

func (h *plainHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *plainHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "agentls: %s: %s", levelWord(r.Level), sandbox.Visible(r.Message))
	sep := " — "
	add := func(a slog.Attr) bool {
		if a.Equal(slog.Attr{}) {
			return true
		}
		fmt.Fprintf(&b, "%s%s: %s", sep, a.Key, sandbox.Visible(a.Value.Resolve().String()))
		sep = "; "
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	b.WriteByte('\n')
	if h.mu != nil {
		h.mu.Lock()
		defer h.mu.Unlock()
	}
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *plainHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

// WithGroup keeps the attributes flat: a warning line has no groups.
func (h *plainHandler) WithGroup(string) slog.Handler { return h }

func levelWord(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	}
	return "info"
}
