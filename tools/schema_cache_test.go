package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// uniqueTool is a read tool with a schema no other test uses, so that the
// process-wide cache has not seen it; runs counts its runs.
func uniqueTool(t *testing.T, name string, runs *atomic.Int32) *Tool {
	schema := fmt.Sprintf(`{"type":"object","description":%q,"additionalProperties":false,"properties":{"n":{"type":"integer","minimum":1}}}`, t.Name())
	return &Tool{Name: name, Description: "x", Risk: RiskRead, Schema: json.RawMessage(schema),
		Run: func(context.Context, *Env, json.RawMessage) (Result, error) {
			runs.Add(1)
			return Result{Content: "ran"}, nil
		}}
}

// TestRegistry_Issue16_SchemaCompiledOncePerProcess: a tool registered
// again for every run (the sub-agent tool, MCP tools) and through
// NewGateway's run tools is compiled once for the process.
func TestRegistry_Issue16_SchemaCompiledOncePerProcess(t *testing.T) {
	var runs atomic.Int32
	tool := uniqueTool(t, "per_run", &runs)
	before := schemaCompiles.Load()
	for range 5 {
		if err := NewRegistry().Register(tool); err != nil {
			t.Fatal(err)
		}
		if _, err := NewGateway(NewRegistry(), &GatewayOptions{Root: t.TempDir(), Tools: []*Tool{tool}, Allowed: []string{"per_run"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := schemaCompiles.Load() - before; n != 1 {
		t.Fatalf("10 registrations compiled %d times, want 1", n)
	}
}

// TestRegistry_Issue16_LazySchemaThatFailsRefuses: a schema compiled on
// first use that does not compile refuses every call (fail closed); the
// tool never runs. Register still refuses such a tool at once.
func TestRegistry_Issue16_LazySchemaThatFailsRefuses(t *testing.T) {
	var runs atomic.Int32
	tool := uniqueTool(t, "bad_schema", &runs)
	tool.Schema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"no-such-type"}}}`)
	if err := NewRegistry().Register(tool); err == nil {
		t.Fatal("Register accepted a schema that does not compile")
	}
	reg := NewRegistry()
	reg.MustRegister(tool)
	r := newGateway(reg, &Env{Root: t.TempDir()}, &gatewayConfig{Allowed: []string{"bad_schema"}})
	for range 2 {
		res, err := r.Call(context.Background(), "bad_schema", `{"n":1}`)
		if err != nil || !res.IsError || !strings.Contains(res.Content, "internal") || runs.Load() != 0 {
			t.Fatalf("call = %+v, %v, runs %d; want an internal refusal and no run", res, err, runs.Load())
		}
	}
}

// TestRegistry_Issue16_SchemaCacheBounded: schemas that change on every
// registration (an MCP server's) do not grow the cache past its bound.
func TestRegistry_Issue16_SchemaCacheBounded(t *testing.T) {
	var runs atomic.Int32
	pad := strings.Repeat("x", 8<<10)
	for i := range 2 * schemaCacheBytes / len(pad) {
		tool := uniqueTool(t, "churn", &runs)
		tool.Schema = json.RawMessage(fmt.Sprintf(`{"type":"object","description":"%s %d"}`, pad, i))
		if err := NewRegistry().Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	schemaCache.mu.Lock()
	defer schemaCache.mu.Unlock()
	if schemaCache.bytes > schemaCacheBytes {
		t.Fatalf("the cache holds %d bytes of schemas, bound %d", schemaCache.bytes, schemaCacheBytes)
	}
}
