package lspserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// warningExtensions are extensions that found problems while loading.
type warningExtensions struct{ problems []string }

func (warningExtensions) Hooks() tools.Hooks                           { return nil }
func (warningExtensions) Tools() []*tools.Tool                         { return nil }
func (warningExtensions) Runs() []string                               { return nil }
func (warningExtensions) SessionStart(context.Context, string, string) {}
func (warningExtensions) Stop(context.Context, string, string, string) {}
func (warningExtensions) Close() error                                 { return nil }
func (w warningExtensions) Problems() []string                         { return w.problems }

// A17, T22: what went wrong loading the hooks and MCP servers (an
// unknown key of a copied config) reaches the editor's user, with its
// control characters visible — not only the log.
func TestServer_A17_ExtensionWarningsShown(t *testing.T) {
	ext := warningExtensions{problems: []string{"hooks.json: unknown key \"onFailur\" \x1b[2K(ignored)"}}
	h := start(t, setup{script: `{"content":"ok"}`, files: map[string]string{"a.go": "package a\n"},
		opts: func(o *lspserver.Options) {
			o.StartExtensions = func(context.Context, string, tools.Approver) lspserver.Extensions { return ext }
		}})
	h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "look"})
	for _, m := range h.c.Received("window/showMessage") {
		if s := string(m.Params); strings.Contains(s, "onFailur") {
			if strings.Contains(s, "\\u001b") || !strings.Contains(s, `\\x1b`) {
				t.Errorf("control bytes not made visible: %s", s)
			}
			return
		}
	}
	t.Error("the warning did not reach the editor")
}
