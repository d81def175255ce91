package tools

import (
	"encoding/json"
	"maps"
)

// enforcedOnly are the JSON Schema keywords that bound a value the model
// sends without telling the model what to send: the gateway checks them
// against the tool's full [Tool.Schema] (T3) and answers a violation with
// a structured invalid_args error naming the field, so the model reads them
// only when it crosses one. Types, required fields, enums, descriptions and
// nesting stay in [ModelSchema].
var enforcedOnly = map[string]bool{
	"maxLength": true, "minLength": true, "maximum": true, "minimum": true,
	"exclusiveMaximum": true, "exclusiveMinimum": true, "maxItems": true, "minItems": true,
	"uniqueItems": true, "maxProperties": true, "minProperties": true, "pattern": true,
	"$schema": true, "$id": true, "$comment": true,
}

// Keywords whose value is a schema, a list of schemas, or a map of names to
// schemas: [ModelSchema] walks into these and nowhere else, so a property
// named "pattern" or "minimum" is kept.
var (
	subSchema    = []string{"items", "additionalItems", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalProperties"}
	subSchemas   = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	namedSchemas = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// ModelSchema returns the view of a tool's argument schema that is sent to
// the model (issue 16, context diet): schema without the limits the gateway
// enforces (enforcedOnly) and without "additionalProperties": false, which
// the gateway enforces too (an unknown field is invalid_args). What the
// model must know to make a valid call stays. A schema that does not parse
// is returned unchanged.
func ModelSchema(schema json.RawMessage) json.RawMessage {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return schema
	}
	b, err := json.Marshal(stripEnforced(doc))
	if err != nil {
		return schema
	}
	return b
}

// stripEnforced returns a copy of the schema object s without the
// enforced-only keywords, at every depth.
func stripEnforced(s map[string]any) map[string]any {
	out := maps.Clone(s)
	for k := range s {
		if enforcedOnly[k] {
			delete(out, k)
		}
	}
	if ap, ok := out["additionalProperties"].(bool); ok && !ap {
		delete(out, "additionalProperties")
	}
	for _, k := range subSchema {
		if m, ok := out[k].(map[string]any); ok {
			out[k] = stripEnforced(m)
		}
	}
	for _, k := range subSchemas {
		if list, ok := out[k].([]any); ok {
			l := make([]any, len(list))
			for i, v := range list {
				l[i] = v
				if m, ok := v.(map[string]any); ok {
					l[i] = stripEnforced(m)
				}
			}
			out[k] = l
		}
	}
	for _, k := range namedSchemas {
		if named, ok := out[k].(map[string]any); ok {
			n := make(map[string]any, len(named))
			for name, v := range named {
				n[name] = v
				if m, ok := v.(map[string]any); ok {
					n[name] = stripEnforced(m)
				}
			}
			out[k] = n
		}
	}
	return out
}
