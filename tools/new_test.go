package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestNew_SchemaFitsArgs: a tool made by New registers only when its
// schema and its argument type say the same, at every level.
func TestNew_SchemaFitsArgs(t *testing.T) {
	type item struct {
		Old string `json:"old"`
		New string `json:"new,omitempty"`
	}
	type args struct {
		Path  string `json:"path"`
		Limit int    `json:"limit,omitempty"`
		Items []item `json:"items"`
	}
	const good = `{"type":"object","required":["path","items"],"properties":{
		"path":{"type":"string"},"limit":{"type":"integer"},
		"items":{"type":"array","items":{"type":"object","required":["old"],"properties":{"old":{"type":"string"},"new":{"type":"string"}}}}}}`
	for _, c := range []struct{ name, schema, want string }{
		{"fits", good, ""},
		{"property without a field", strings.Replace(good, `"limit":{"type":"integer"}`, `"limit":{"type":"integer"},"extra":{"type":"string"}`, 1), "properties"},
		{"field without a property", strings.Replace(good, `"limit":{"type":"integer"},`, ``, 1), `"limit"`},
		{"wrong kind", strings.Replace(good, `"limit":{"type":"integer"}`, `"limit":{"type":"string"}`, 1), "limit"},
		{"required differs", strings.Replace(good, `"required":["path","items"]`, `"required":["path"]`, 1), "required"},
		{"nested required differs", strings.Replace(good, `"required":["old"]`, `"required":["old","new"]`, 1), "items[]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool := New(Tool{Name: "typed", Schema: json.RawMessage(c.schema), Risk: RiskRead}, nil,
				func(context.Context, *Env, *args) (Result, error) { return Result{}, nil })
			err := NewRegistry().Register(tool)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Register: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Register: %v, want an error naming %q", err, c.want)
			}
		})
	}
}

// TestNew_DecodesOnce: Check and Run get the arguments decoded into the
// type; arguments that do not decode are refused, not handed on.
func TestNew_DecodesOnce(t *testing.T) {
	type args struct {
		N int `json:"n"`
	}
	var seen []int
	tool := New(Tool{Name: "typed", Schema: json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}`), Risk: RiskNone},
		func(_ context.Context, _ *Env, a *args) (*Verdict, error) {
			seen = append(seen, a.N)
			return &Verdict{Decision: Allow}, nil
		},
		func(_ context.Context, _ *Env, a *args) (Result, error) {
			seen = append(seen, a.N)
			return Result{Content: "ok"}, nil
		})
	if v, _ := tool.Check(t.Context(), &Env{}, json.RawMessage(`{"n":7}`)); v.Decision != Allow {
		t.Errorf("check: %+v", v)
	}
	if res, _ := tool.Run(t.Context(), &Env{}, json.RawMessage(`{"n":8}`)); res.Content != "ok" {
		t.Errorf("run: %+v", res)
	}
	if len(seen) != 2 || seen[0] != 7 || seen[1] != 8 {
		t.Errorf("seen %v", seen)
	}
	if v, _ := tool.Check(t.Context(), &Env{}, json.RawMessage(`{"n":"x"}`)); v.Decision != Deny || v.Code != CodeInvalidArgs {
		t.Errorf("check of bad args: %+v", v)
	}
	if res, _ := tool.Run(t.Context(), &Env{}, json.RawMessage(`{"n":"x"}`)); !res.IsError || res.Code != CodeInvalidArgs {
		t.Errorf("run of bad args: %+v", res)
	}
	if len(seen) != 2 {
		t.Errorf("a handler saw undecodable args: %v", seen)
	}
}
