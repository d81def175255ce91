package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// TestModelSchema_I16_DropsEnforcedLimits: the model's view of a schema
// keeps types, required fields, enums, descriptions and nesting, and drops
// the limits the gateway enforces, at every depth, without touching a
// property that happens to be named like a keyword ("pattern", "minimum").
func TestModelSchema_I16_DropsEnforcedLimits(t *testing.T) {
	in := `{"type":"object","additionalProperties":false,"required":["pattern"],"$schema":"https://json-schema.org/draft/2020-12/schema",
		"properties":{
			"pattern":{"type":"string","minLength":1,"maxLength":1000,"pattern":"^x"},
			"minimum":{"type":"integer","minimum":1,"maximum":9,"description":"kept"},
			"mode":{"type":"string","enum":["a","b"]},
			"edits":{"type":"array","maxItems":5,"minItems":1,"uniqueItems":true,
				"items":{"type":"object","additionalProperties":false,"properties":{"t":{"type":"string","maxLength":3}}}},
			"any":{"anyOf":[{"type":"string","maxLength":2},{"type":"integer","exclusiveMaximum":3}]},
			"extra":{"type":"object","additionalProperties":{"type":"string","maxLength":4}}}}`
	got := string(tools.ModelSchema(json.RawMessage(in)))
	want := `{"properties":{"any":{"anyOf":[{"type":"string"},{"type":"integer"}]},` +
		`"edits":{"items":{"properties":{"t":{"type":"string"}},"type":"object"},"type":"array"},` +
		`"extra":{"additionalProperties":{"type":"string"},"type":"object"},` +
		`"minimum":{"description":"kept","type":"integer"},"mode":{"enum":["a","b"],"type":"string"},` +
		`"pattern":{"type":"string"}},"required":["pattern"],"type":"object"}`
	if got != want {
		t.Errorf("ModelSchema:\n got %s\nwant %s", got, want)
	}
	if bad := `{"type": oops`; string(tools.ModelSchema(json.RawMessage(bad))) != bad {
		t.Error("a schema that does not parse must come back unchanged")
	}
}

// TestModelSchema_I16_GatewayStillEnforces: every built-in tool's model
// schema carries none of the stripped limits, and the gateway still
// refuses a call that breaks one with a structured invalid_args error
// naming the field: the limits moved out of the request, not out of the
// gateway.
func TestModelSchema_I16_GatewayStillEnforces(t *testing.T) {
	reg := tools.NewRegistry()
	reg.MustRegister(builtin.All()...)
	for _, tl := range builtin.All() {
		s := string(tools.ModelSchema(tl.Schema))
		for _, kw := range []string{`"maxLength"`, `"minLength"`, `"maximum"`, `"minimum"`, `"maxItems"`, `"additionalProperties":false`} {
			if strings.Contains(s, kw) {
				t.Errorf("%s: model schema still has %s: %s", tl.Name, kw, s)
			}
		}
	}
	gw, err := tools.NewGateway(reg, &tools.GatewayOptions{Root: t.TempDir(), Allowed: reg.Names()})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ tool, args, field string }{
		{"read_file", `{"path":"` + strings.Repeat("a", 5000) + `"}`, "path"},               // maxLength
		{"read_file", `{"path":"a.go","offset":0}`, "offset"},                               // minimum
		{"read_file", `{"path":"a.go","limit":999999}`, "limit"},                            // maximum
		{"edit_file", `{"path":"a.go","edits":[]}`, "edits"},                                // minItems
		{"list_dir", `{"path":"."}`, ""},                                                    // valid: no refusal
		{"list_dir", `{"path":".","recursive":true}`, ""},                                   // additionalProperties
		{"calculator", `{"expression":"` + strings.Repeat("1+", 600) + `1"}`, "expression"}, // maxLength
	}
	for _, tc := range cases {
		res, err := gw.Call(context.Background(), tc.tool, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		valid := tc.field == "" && !strings.Contains(tc.args, "recursive")
		if valid {
			if res.IsError {
				t.Errorf("%s %.60s: refused: %s", tc.tool, tc.args, res.Content)
			}
			continue
		}
		var te struct{ Code, Field, Reason string }
		if err := json.Unmarshal([]byte(res.Content), &te); err != nil || res.Code != tools.CodeInvalidArgs || te.Field != tc.field {
			t.Errorf("%s %.60s: got %s (code %s), want invalid_args on field %q", tc.tool, tc.args, res.Content, res.Code, tc.field)
		}
	}
}
