package tools

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaCacheBytes bounds the schema text the process-wide cache holds:
// schemas beyond it (an MCP server that changes its tools on every list)
// are compiled each time instead of kept forever.
const schemaCacheBytes = 256 << 10

// schemaCache holds compiled tool schemas for the whole process, keyed by
// tool name and schema text (issue 16): a run's own tools (the sub-agent
// tool, MCP tools) are registered again for every run and every MCP tool
// was compiled twice, and compiling validates the schema against its
// draft's metaschema, ≈ 50-100 µs and hundreds of allocations a schema. A
// compiled [jsonschema.Schema] is read-only, safe to validate with from
// any goroutine.
var schemaCache struct {
	mu    sync.Mutex // guards m, bytes
	m     map[string]*toolSchema
	bytes int
}

// toolSchema is a tool's schema, compiled on first use: built-in tools,
// whose schemas are fixed at compile time, are registered at every start
// but only those the model calls need one.
type toolSchema struct {
	name string
	text []byte
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

// schemaOf returns the (shared) schema entry of a tool, not yet compiled.
func schemaOf(name string, text []byte) *toolSchema {
	key := name + "\x00" + string(text)
	schemaCache.mu.Lock()
	defer schemaCache.mu.Unlock()
	if s, ok := schemaCache.m[key]; ok {
		return s
	}
	s := &toolSchema{name: name, text: bytes.Clone(text)}
	if schemaCache.bytes+len(key) <= schemaCacheBytes {
		if schemaCache.m == nil {
			schemaCache.m = make(map[string]*toolSchema)
		}
		schemaCache.m[key] = s
		schemaCache.bytes += len(key)
	}
	return s
}

// compiled returns the compiled schema, compiling it once.
func (s *toolSchema) compiled() (*jsonschema.Schema, error) {
	s.once.Do(func() { s.sch, s.err = compileSchema(s.name, s.text) })
	return s.sch, s.err
}

// compileSchema compiles one tool's schema on its own, without loading
// anything it references.
func compileSchema(name string, text []byte) (*jsonschema.Schema, error) {
	schemaCompiles.Add(1)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	// A schema may come from an MCP server: a $ref it holds must never
	// make the compiler read a file (/dev/zero, /proc/…) or anything else.
	c.UseLoader(refusingLoader{})
	url := "agentls:tool/" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: schema: %v", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %v", name, err)
	}
	return sch, nil
}

// schemaCompiles counts compilations, for the tests.
var schemaCompiles atomic.Int64
