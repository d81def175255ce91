package lspserver_test

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
)

// E1: a range past the end of the file is InvalidParams; a character past
// the end of a line is clamped (the specification's rule) and accepted.
func TestServer_E1_RangePastEnd(t *testing.T) {
	h := start(t, setup{
		script: `{"content":"Plan: nothing to do."}`,
		files:  map[string]string{"a.go": "package a\n\nfunc A() {}\n"},
	})
	pos := func(l, c int) map[string]int { return map[string]int{"line": l, "character": c} }
	for _, r := range []map[string]any{
		{"start": pos(0, 0), "end": pos(10, 0)},
		{"start": pos(7, 0), "end": pos(8, 0)},
		{"start": pos(2, 0), "end": pos(1, 0)}, // ends before it starts
	} {
		_, err := h.run(command.Plan, map[string]any{"uri": h.uri("a.go"), "range": r, "instruction": "x"})
		wantCode(t, err, jsonrpc2.InvalidParams)
	}
	res := h.mustRun(command.Plan, map[string]any{
		"uri": h.uri("a.go"), "range": map[string]any{"start": pos(2, 0), "end": pos(2, 999)}, "instruction": "x",
	})
	if res.Status != "done" {
		t.Errorf("status %q", res.Status)
	}
	reqs := h.modelRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if task := reqs[0].Messages[1].text(); !strings.Contains(task, "func A() {}") {
		t.Errorf("the task does not hold the clamped selection:\n%s", task)
	}
}

// E1: no model configured, or NewModel failing, is RequestFailed with
// data.reason model.unavailable.
func TestServer_E1_NoModel(t *testing.T) {
	files := map[string]string{"a.go": "package a\n"}
	for name, fn := range map[string]func() (agent.Model, error){
		"nil NewModel":    nil,
		"NewModel errors": func() (agent.Model, error) { return nil, errors.New("no endpoint configured") },
	} {
		t.Run(name, func(t *testing.T) {
			h := start(t, setup{files: files, opts: func(o *lspserver.Options) { o.NewModel = fn }})
			_, err := h.run(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "x"})
			if reason := wantCode(t, err, lspserver.CodeRequestFailed); reason != "model.unavailable" {
				t.Errorf("reason %q, want model.unavailable", reason)
			}
		})
	}
}

// E1: a model endpoint that is down is RequestFailed model.unavailable,
// and the server answers the next request.
func TestServer_E1_ModelEndpointDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := start(t, setup{
		files: map[string]string{"a.go": "package a\n"},
		opts: func(o *lspserver.Options) {
			o.NewModel = func() (agent.Model, error) {
				return openai.New(&openai.Options{BaseURL: "http://" + addr + "/v1", Model: "m", MaxRetries: -1})
			}
		},
	})
	start := time.Now()
	_, err = h.run(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "x"})
	if reason := wantCode(t, err, lspserver.CodeRequestFailed); reason != "model.unavailable" {
		t.Errorf("reason %q, want model.unavailable (message %q)", reason, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	// Still serving.
	_, err = h.run(command.Plan, map[string]any{"uri": "file:///etc/passwd", "instruction": "x"})
	wantCode(t, err, lspserver.CodeRequestFailed)
	if err := h.c.Call(h.ctx(), "shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown after the failed run: %v", err)
	}
}
