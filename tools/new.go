package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Handler runs one call of a tool with its arguments decoded into A. It
// has the contract of [Tool.Run]: a tool failure is an error [Result], a
// Go error an infrastructure failure.
type Handler[A any] func(ctx context.Context, env *Env, args *A) (Result, error)

// Checker is the static policy step of a tool with arguments A: the
// contract of [Tool.Check].
type Checker[A any] func(ctx context.Context, env *Env, args *A) (*Verdict, error)

// New returns t with its Check and Run made from check and run, as the
// MCP SDK's AddTool makes a tool of a ToolHandlerFor: the arguments,
// already valid against t.Schema, are decoded once into an A for each
// step. t.Schema is checked against A when the tool is registered: every
// property is a field (by its json tag) of a matching kind and every field
// a property, and the required properties are the fields without
// omitempty, at every level ([Registry.Register] fails otherwise). A nil
// check means allow with no preview.
func New[A any](t Tool, check Checker[A], run Handler[A]) *Tool {
	t.args = reflect.TypeFor[A]()
	if check != nil {
		t.Check = func(ctx context.Context, env *Env, raw json.RawMessage) (*Verdict, error) {
			var a A
			if json.Unmarshal(raw, &a) != nil {
				return &Verdict{Decision: Deny, Code: CodeInvalidArgs, Rule: "args.decode", Reason: argsUnfit}, nil
			}
			return check(ctx, env, &a)
		}
	}
	t.Run = func(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
		var a A
		if json.Unmarshal(raw, &a) != nil {
			return Fail(CodeInvalidArgs, "", argsUnfit, "fix the arguments and call again"), nil
		}
		return run(ctx, env, &a)
	}
	return &t
}

// argsUnfit is the reason of arguments that pass the schema and still do
// not decode (a schema that allows more than its type).
const argsUnfit = "arguments do not fit the tool"

// schemaFits reports how schema and the argument type typ of a tool made
// by [New] disagree; nil when they agree.
func schemaFits(schema json.RawMessage, typ reflect.Type) error {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("schema: %v", err)
	}
	return fits("", s, typ)
}

// fits compares the schema s at path with the Go type typ.
func fits(path string, s map[string]any, typ reflect.Type) error {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	want := map[string][]reflect.Kind{
		"string": {reflect.String}, "boolean": {reflect.Bool},
		"integer": {reflect.Int, reflect.Int32, reflect.Int64}, "number": {reflect.Float64, reflect.Float32},
		"array": {reflect.Slice}, "object": {reflect.Struct},
	}
	kind, _ := s["type"].(string)
	if kinds, ok := want[kind]; !ok || !slices.Contains(kinds, typ.Kind()) {
		return fmt.Errorf("%s: schema type %q, Go type %s", where(path), kind, typ)
	}
	switch kind {
	case "array":
		items, _ := s["items"].(map[string]any)
		return fits(path+"[]", items, typ.Elem())
	case "object":
		return fitsObject(path, s, typ)
	}
	return nil
}

// fitsObject compares an object schema with a struct type, field by field.
func fitsObject(path string, s map[string]any, typ reflect.Type) error {
	props, _ := s["properties"].(map[string]any)
	var required []string
	list, _ := s["required"].([]any)
	for _, r := range list {
		name, _ := r.(string)
		required = append(required, name)
	}
	var mandatory []string
	for f := range typ.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			return fmt.Errorf("%s: field %s has no json name", where(path), f.Name)
		}
		prop, ok := props[name].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: field %s (%q) is not in the schema", where(path), f.Name, name)
		}
		if err := fits(strings.TrimPrefix(path+"."+name, "."), prop, f.Type); err != nil {
			return err
		}
		if !slices.Contains(strings.Split(opts, ","), "omitempty") {
			mandatory = append(mandatory, name)
		}
	}
	if n := typ.NumField(); len(props) != n {
		return fmt.Errorf("%s: the schema has %d properties, %s %d fields", where(path), len(props), typ, n)
	}
	slices.Sort(required)
	slices.Sort(mandatory)
	if !slices.Equal(required, mandatory) {
		return fmt.Errorf("%s: required %v, fields without omitempty %v", where(path), required, mandatory)
	}
	return nil
}

func where(path string) string {
	if path == "" {
		return "arguments"
	}
	return path
}
