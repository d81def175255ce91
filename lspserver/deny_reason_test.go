package lspserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// Issue 28, T7: a client that can take text (agentls/editText: our
// plugins and the headless client) is offered "Deny with a reason…"; the
// user's words reach the model in the refusal (user_reason) and the audit
// log, and the call never runs.
func TestServer_T7_Issue28_DenyWithReason(t *testing.T) {
	var runs atomic.Int32
	reg := tools.NewRegistry()
	for _, tl := range builtin.All() {
		if tl.Name != "run_command" {
			reg.MustRegister(tl)
		}
	}
	// run_command, as the mode offers it, that always asks.
	reg.MustRegister(&tools.Tool{Name: "run_command", Description: "x", Risk: tools.RiskExecute,
		Schema: json.RawMessage(`{"type":"object"}`),
		Check: func(context.Context, *tools.Env, json.RawMessage) (*tools.Verdict, error) {
			return &tools.Verdict{Decision: tools.Ask, Subject: "deploy prod", Preview: "$ deploy prod", Rule: "test.ask"}, nil
		},
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			runs.Add(1)
			return tools.Result{Content: "deployed"}, nil
		},
	})
	var audit bytes.Buffer
	caps := clientCaps(true, true, true)
	caps["experimental"] = map[string]any{"agentls": map[string]any{"saveDocuments": true, "editText": true}}
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"d1","name":"run_command","arguments":{}}]}`,
		`{"content":"Understood."}`,
	}, "\n")
	h := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: caps,
		opts: func(o *lspserver.Options) {
			o.Registry = reg
			o.Audit = tools.NewAuditLog(&audit)
		}})
	h.c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var q question
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, err
		}
		if !q.offers(command.ActionDenyWithReason) {
			t.Errorf("no %q in %+v", command.ActionDenyWithReason, q.Actions)
			return nil, nil
		}
		return map[string]string{"title": command.ActionDenyWithReason}, nil
	})
	h.c.Handle(command.MethodEditText, func(_ context.Context, raw json.RawMessage) (any, error) {
		return map[string]any{"text": "  not on a Friday; deploy to staging first  "}, nil
	})
	h.mustRun(command.Execute, execArg(h))
	if runs.Load() != 0 {
		t.Error("the declined call ran")
	}
	var refusal struct {
		Code       string `json:"code"`
		UserReason string `json:"user_reason"`
	}
	if err := json.Unmarshal([]byte(h.toolResult("d1")), &refusal); err != nil {
		t.Fatal(err)
	}
	if refusal.Code != "approval_denied" || refusal.UserReason != "not on a Friday; deploy to staging first" {
		t.Errorf("the model was told %+v, want approval_denied with the user's reason", refusal)
	}
	if !strings.Contains(audit.String(), `"user_reason":"not on a Friday; deploy to staging first"`) {
		t.Errorf("the audit log lacks the reason:\n%s", audit.String())
	}
}

// Issue 28 ("why was I asked?"): a tool question says what the call does,
// in its check's words, and the rule that asks.
func TestServer_T7_Issue28_QuestionSaysWhy(t *testing.T) {
	h := start(t, setup{script: strings.Join([]string{
		`{"tool_calls":[{"id":"c1","name":"run_command","arguments":{"command":"rm -rf build"}}]}`,
		`{"content":"ok"}`,
	}, "\n"), files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true)})
	var mu sync.Mutex
	var asked string
	h.c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var q question
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		asked = q.Message
		return map[string]string{"title": command.ActionDeny}, nil
	})
	h.mustRun(command.Execute, execArg(h))
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(asked, "Why asked: deletes inside the workspace (rule ") {
		t.Errorf("the question does not say why it asks:\n%s", asked)
	}
}
