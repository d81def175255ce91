package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// ProjectPolicyFile is the project's policy file, relative to the
// workspace root. Hooks and MCP servers live beside it (.agentls/).
const ProjectPolicyFile = ".agentls/policy.json"

// ReadConfigFile decodes the JSON file rel (a slash path inside the
// workspace root) into v, as untrusted configuration (T20): the file is
// read with [sandbox.ReadConfigFile] (a regular file inside root only,
// symlinks included, never a FIFO or device, without blocking, at most
// max bytes; max <= 0 means [sandbox.MaxConfigBytes]) and decoded
// strictly (one JSON value, no unknown fields). A missing file is an
// error for which errors.Is(err, fs.ErrNotExist) holds. Errors name rel
// and a line and column, never the file's content. Policy, hooks and MCP
// configuration all load through here.
func ReadConfigFile(root, rel string, max int64, v any) error {
	data, err := sandbox.ReadConfigFile(root, rel, max)
	if err != nil {
		return err
	}
	if err := DecodeConfig(data, v); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	return nil
}

// ErrConfigSyntax is wrapped by the errors of [DecodeConfig].
var ErrConfigSyntax = errors.New("invalid configuration")

// DecodeConfig decodes data, one JSON object, into v, refusing unknown
// fields and trailing data. Its errors say where (line and column) and
// what kind of mistake, without quoting the input: the encoding/json
// messages quote the offending byte, which could be a secret's first
// character if the file is not what it claims.
func DecodeConfig(data []byte, v any) error {
	return decodeConfig(data, v, true)
}

func decodeConfig(data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return fmt.Errorf("%w: %s: data after the JSON value", ErrConfigSyntax, lineCol(data, dec.InputOffset()))
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included.
		return fmt.Errorf("%w: %s: not valid JSON", ErrConfigSyntax, lineCol(data, syn.Offset-1))
	case errors.As(err, &typ):
		return fmt.Errorf("%w: %s: %s must be %s", ErrConfigSyntax, lineCol(data, typ.Offset), fieldName(typ.Field), typ.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: the file ends before the JSON value does", ErrConfigSyntax)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return unknownField(data, strings.Trim(name, `"`))
	}
	return fmt.Errorf("%w: the JSON does not fit the format", ErrConfigSyntax)
}

func unknownField(data []byte, name string) error {
	if !plainKeyName(name) {
		return fmt.Errorf("%w: an unknown field", ErrConfigSyntax)
	}
	where := ""
	if i := bytes.Index(data, []byte(`"`+name+`"`)); i >= 0 {
		where = lineCol(data, int64(i)) + ": "
	}
	return fmt.Errorf("%w: %sunknown field %q", ErrConfigSyntax, where, name)
}

// fieldName is the dotted path of a field; map keys on the path come from
// the input, so a part that is not a plain key name is shown as "?".
func fieldName(f string) string {
	f = strings.TrimPrefix(f, ".")
	if f == "" {
		return "the value"
	}
	parts := strings.Split(f, ".")
	for i, p := range parts {
		if !plainKeyName(p) {
			parts[i] = "?"
		}
	}
	return "field " + strings.Join(parts, ".")
}

// lineCol is the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int64) string {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// ReadUserConfig reads the user's config file at path (config.json: the
// model's settings, hooks and MCP servers) — the one reader of that file,
// for every part of it. It is the user's own file, so a symlink may lead
// anywhere (a dotfiles checkout), but it is read as untrusted
// configuration is (T20): a regular file only, never a FIFO or device,
// opened without blocking (a FIFO would hang the process, deaf to
// SIGTERM, in open(2)), at most [sandbox.MaxConfigBytes]. A missing file
// or an empty path is an error for which errors.Is(err, fs.ErrNotExist)
// holds; every other error names path.
func ReadUserConfig(path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("no config file: %w", fs.ErrNotExist)
	}
	return sandbox.ReadRegularFile(path, sandbox.MaxConfigBytes)
}

// DecodeUserConfig decodes the user's config file, data, into v, leaving
// keys v does not read to the file's other readers (the model's
// settings, the extensions'); [UnknownKeys] says which keys nobody reads.
// Its errors are those of [DecodeConfig].
func DecodeUserConfig(data []byte, v any) error {
	return decodeConfig(data, v, false)
}

// UnknownKeys lists, for the user, the keys of the JSON object data that
// none of shapes (pointers to what the file is decoded into, or values of
// those types) reads, at any depth, in a stable order: "unknown key
// \"cwd\" in mcpServers.github; ignored". Keys match fields as
// encoding/json matches them, case-insensitively. Keys and map keys on
// the path that are not plain key names (see plainKeyName) are not
// quoted: the file may be a repository's. Data that is not a JSON object
// has no unknown keys (decoding it fails on its own).
func UnknownKeys(data []byte, shapes ...any) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	types := make([]reflect.Type, 0, len(shapes))
	for _, s := range shapes {
		types = append(types, reflect.TypeOf(s))
	}
	var out []string
	unknownKeys(v, types, "", &out, 0)
	return out
}

// unknownKeys walks the decoded JSON value v against the Go types it
// decodes into; depth bounds the walk of a hostile nesting.
func unknownKeys(v any, types []reflect.Type, path string, out *[]string, depth int) {
	if depth > 32 || len(types) == 0 {
		return
	}
	for i, t := range types {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == rawMessage {
			t = reflect.TypeFor[any]()
		}
		types[i] = t
	}
	where := func() string {
		if path == "" {
			return "at the top level"
		}
		return "in " + path
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			var next []reflect.Type
			known := false
			for _, t := range types {
				switch t.Kind() {
				case reflect.Struct:
					if ft, ok := jsonField(t, k); ok {
						known, next = true, append(next, ft)
					}
				case reflect.Map:
					known, next = true, append(next, t.Elem())
				case reflect.Interface:
					known = true // any value: nothing to check under it
				}
			}
			if !known {
				name := "an unknown key"
				if plainKeyName(k) {
					name = fmt.Sprintf("unknown key %q", k)
				}
				*out = append(*out, fmt.Sprintf("%s %s; ignored", name, where()))
				continue
			}
			part := k
			if !plainKeyName(k) {
				part = "?"
			}
			if path != "" {
				part = path + "." + part
			}
			unknownKeys(v[k], next, part, out, depth+1)
		}
	case []any:
		var next []reflect.Type
		for _, t := range types {
			if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
				next = append(next, t.Elem())
			}
		}
		for i, e := range v {
			unknownKeys(e, slices.Clone(next), fmt.Sprintf("%s[%d]", path, i), out, depth+1)
		}
	}
}

// rawMessage is json.RawMessage's type: what is under it is read later,
// by someone else, or not at all.
var rawMessage = reflect.TypeFor[json.RawMessage]()

// jsonField finds the type of the field of struct t that the JSON key k
// decodes into, as encoding/json matches keys (the tag's name, or the
// field's; exact first, then case-insensitively), through embedded
// structs.
func jsonField(t reflect.Type, k string) (reflect.Type, bool) {
	var fold reflect.Type
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == k {
			return f.Type, true
		}
		if fold == nil && strings.EqualFold(name, k) {
			fold = f.Type
		}
	}
	return fold, fold != nil
}
