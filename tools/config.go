package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
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
