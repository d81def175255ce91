package lspserver_test

import (
	"errors"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
)

// E2: after shutdown every request fails, and exit ends Serve cleanly.
func TestServer_E2_ShutdownThenExit(t *testing.T) {
	h := start(t, setup{})
	if err := h.c.Call(h.ctx(), "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err := h.run(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "x"})
	if err == nil {
		t.Fatal("executeCommand after shutdown succeeded")
	}
	wireError(t, err)
	if err := h.c.Call(h.ctx(), "textDocument/codeAction", map[string]any{}, nil); err == nil {
		t.Fatal("codeAction after shutdown succeeded")
	}
	if err := h.c.Notify(h.ctx(), "exit", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.c.WaitServe(wait); err != nil {
		t.Fatalf("Serve after exit: %v", err)
	}
}

// E2, E11: exit without shutdown also ends Serve, with
// ErrExitWithoutShutdown: the spec's exit code 1 for the process.
func TestServer_E11_ExitWithoutShutdown(t *testing.T) {
	h := start(t, setup{})
	if err := h.c.Notify(h.ctx(), "exit", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.c.WaitServe(wait); !errors.Is(err, lspserver.ErrExitWithoutShutdown) {
		t.Fatalf("Serve after exit without shutdown: %v, want ErrExitWithoutShutdown", err)
	}
}
