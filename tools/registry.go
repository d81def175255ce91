package tools

import (
	"fmt"
	"slices"
	"sort"
	"sync"
)

// Registry holds the tools known to a server, each with its compiled schema.
// It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex // guards tools
	tools map[string]*entry
}

type entry struct {
	tool   *Tool
	schema *toolSchema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: make(map[string]*entry)}
}

// Register adds t. It fails on an invalid or duplicate name, a missing Run,
// an unknown risk, or a schema that does not compile.
func (r *Registry) Register(t *Tool) error {
	if err := checkTool(t); err != nil {
		return err
	}
	sch := schemaOf(t.Name, t.Schema)
	if _, err := sch.compiled(); err != nil {
		return err
	}
	return r.add(t, sch)
}

// checkTool checks what Register checks but the schema's compiling.
func checkTool(t *Tool) error {
	if !validToolName(t.Name) {
		return fmt.Errorf("tool name %q: want 1-64 characters of [a-z0-9_]", t.Name)
	}
	if t.args != nil {
		if err := schemaFits(t.Schema, t.args); err != nil {
			return fmt.Errorf("tool %s: the schema does not fit its arguments: %v", t.Name, err)
		}
	}
	if t.Run == nil {
		return fmt.Errorf("tool %s: no Run function", t.Name)
	}
	switch t.Risk {
	case RiskRead, RiskWrite, RiskExecute, RiskNetwork, RiskMCP, RiskNone:
	default:
		return fmt.Errorf("tool %s: unknown risk %q", t.Name, t.Risk)
	}
	return nil
}

// add enters t with its schema; it fails on a duplicate name.
func (r *Registry) add(t *Tool, sch *toolSchema) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tool %s: already registered", t.Name)
	}
	r.tools[t.Name] = &entry{tool: t, schema: sch}
	return nil
}

// refusingLoader loads no schema: only the tool's own document and the
// compiler's built-in metaschemas are ever used.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema references %q: external references are not loaded", cut(url, 80))
}

// MustRegister is [Registry.Register] for built-in tools, whose definitions
// are fixed at compile time; it panics on error. Their schemas are
// compiled on first use, not here (issue 16: every start registers all of
// them before the first model request, and a run calls a few): a schema
// that does not compile refuses every call of its tool, and
// TestBuiltins_Issue16_SchemasCompile holds the built-in ones to compiling.
func (r *Registry) MustRegister(tools ...*Tool) {
	for _, t := range tools {
		err := checkTool(t)
		if err == nil {
			err = r.add(t, schemaOf(t.Name, t.Schema))
		}
		if err != nil {
			panic(err)
		}
	}
}

func (r *Registry) lookup(name string) (*entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	return e, ok
}

// Lookup returns the tool called name, or [ErrUnknownTool].
func (r *Registry) Lookup(name string) (*Tool, error) {
	e, ok := r.lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	return e.tool, nil
}

// Names returns the registered tool names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Select returns the registered tools whose names are in names, in the
// order of names; unknown names are skipped.
func (r *Registry) Select(names []string) []*Tool {
	var out []*Tool
	for _, n := range slices.Compact(slices.Clone(names)) {
		if e, ok := r.lookup(n); ok {
			out = append(out, e.tool)
		}
	}
	return out
}
