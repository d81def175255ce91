package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// The gateway's tests that need real built-in tools: package tools cannot
// import tools/builtin, so they live here, in the external test package.

// gateway returns a gateway over reg for a run in env, as it is.
func gateway(t *testing.T, reg *tools.Registry, env *tools.Env, o *tools.GatewayOptions) *tools.Gateway {
	t.Helper()
	o.Env = env
	g, err := tools.NewGateway(reg, o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// humanConfirm is the built-in human_confirm tool.
func humanConfirm(t *testing.T) *tools.Tool {
	t.Helper()
	for _, tool := range builtin.All() {
		if tool.Name == "human_confirm" {
			return tool
		}
	}
	t.Fatal("no human_confirm")
	return nil
}

// T15, #12 item 3: the time a call waits for the user does not count
// against its execution limit; only the policy's approval timeout bounds
// a question. Before, a 2-minute tool timeout ended a question that the
// policy allowed 5 minutes, as a timeout. The execution limit still
// holds for the work itself, and the audit record says how long the user
// took (wait_ms).
func TestRunner_T15_WaitForUserNotCountedAsExecution(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := tools.DefaultPolicy(tools.ProfileEditor)
		p.ApprovalTimeout = 10 * time.Minute
		reg := tools.NewRegistry()
		reg.MustRegister(humanConfirm(t))
		var audit bytes.Buffer
		r := gateway(t, reg, &tools.Env{Root: t.TempDir()}, &tools.GatewayOptions{
			Allowed: []string{"human_confirm"}, Approver: tools.SlowApprover(4 * time.Minute), Policy: p,
			Timeout: time.Minute, Audit: tools.NewAuditLog(&audit),
		})
		res, err := r.Call(t.Context(), "human_confirm", `{"question":"Push now?"}`)
		if err != nil || res.IsError || res.Content != `{"answer":"approve"}` {
			t.Fatalf("answered after 4 minutes, with a 1-minute tool limit: %+v %v", res, err)
		}
		var rec tools.AuditRecord
		if err := json.Unmarshal(audit.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.WaitMS != (4 * time.Minute).Milliseconds() {
			t.Errorf("wait_ms %d, want %d", rec.WaitMS, (4 * time.Minute).Milliseconds())
		}
	})
}

// TestBuiltins_Issue16_SchemasCompile: the built-in tools' schemas are
// compiled on first use, not at registration; each of them compiles.
func TestBuiltins_Issue16_SchemasCompile(t *testing.T) {
	for _, tool := range builtin.All() {
		if _, err := tools.CompileSchema(tool.Name, tool.Schema); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
}

// TestRegistry_Issue16_BuiltinsCompiledOnFirstUse: registering the
// built-in tools, as every start does before its first model request,
// compiles no schema; a call compiles its tool's schema (once for the
// process) and is validated against it.
func TestRegistry_Issue16_BuiltinsCompiledOnFirstUse(t *testing.T) {
	before := tools.SchemaCompiles.Load()
	reg := tools.NewRegistry()
	reg.MustRegister(builtin.All()...)
	var runs atomic.Int32
	reg.MustRegister(tools.UniqueTool(t, "unique_read", &runs))
	if n := tools.SchemaCompiles.Load() - before; n != 0 {
		t.Fatalf("MustRegister compiled %d schemas, want 0", n)
	}
	r := gateway(t, reg, &tools.Env{Root: t.TempDir()}, &tools.GatewayOptions{Allowed: []string{"unique_read"}})
	res, err := r.Call(context.Background(), "unique_read", `{"n":0}`)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "invalid_args") || runs.Load() != 0 {
		t.Fatalf("a call against the schema: %+v, %v, runs %d; want invalid_args and no run", res, err, runs.Load())
	}
	if res, err := r.Call(context.Background(), "unique_read", `{"n":1}`); err != nil || res.IsError || runs.Load() != 1 {
		t.Fatalf("a valid call: %+v, %v, runs %d", res, err, runs.Load())
	}
	if n := tools.SchemaCompiles.Load() - before; n != 1 {
		t.Fatalf("two calls compiled %d schemas, want 1", n)
	}
}
