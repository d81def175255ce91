package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRegister_B6_SchemaRefsNeverLoadFiles: a tool schema from an MCP
// server is untrusted (T20); a $ref in it must not make the compiler read
// a file — /dev/zero would hang registration, /etc/passwd would be read.
func TestRegister_B6_SchemaRefsNeverLoadFiles(t *testing.T) {
	for _, ref := range []string{"file:///dev/zero", "file:/etc/passwd", "file:///etc/passwd#/x", "https://example.com/s.json"} {
		t.Run(ref, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": ref}}})
				done <- NewRegistry().Register(&Tool{Name: "t", Risk: RiskMCP, Schema: schema,
					Run: func(context.Context, *Env, json.RawMessage) (Result, error) { return Result{}, nil }})
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "external references are not loaded") {
					t.Fatalf("Register = %v, want a refused reference", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Register hangs on a $ref")
			}
		})
	}
}

// TestRegister_B6_Draft07SchemaCompiles: MCP servers built on the
// TypeScript SDK send draft-07 schemas; the metaschema is built in.
func TestRegister_B6_Draft07SchemaCompiles(t *testing.T) {
	schema := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"ms":{"type":"integer","definitions":{}},"b":{"$ref":"#/properties/ms"}},"required":["ms"]}`)
	if err := NewRegistry().Register(&Tool{Name: "t", Risk: RiskMCP, Schema: schema,
		Run: func(context.Context, *Env, json.RawMessage) (Result, error) { return Result{}, nil }}); err != nil {
		t.Fatal(err)
	}
}
