package importcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
)

// ErrDamaged is wrapped by the errors of [MergePolicy] and [MergeConfig]
// for an existing file that cannot be merged with: nothing may be written
// over it.
var ErrDamaged = errors.New("the existing file is damaged")

// decodeExisting decodes the user's file, one JSON object, keeping its
// numbers as written; nil or empty data is an empty object.
func decodeExisting(data []byte) (map[string]any, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil
	}
	var v any
	if err := tools.DecodeUserConfig(data, &v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: not a JSON object", ErrDamaged)
	}
	// Numbers as written: re-decode with UseNumber.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return m, nil
	}
	return doc, nil
}

// section is the object under key of doc, created when missing; ok is
// false when doc holds something else there.
func section(doc map[string]any, key string) (map[string]any, error) {
	switch v := doc[key].(type) {
	case nil:
		m := map[string]any{}
		doc[key] = m
		return m, nil
	case map[string]any:
		return v, nil
	}
	return nil, fmt.Errorf("%w: %q is not an object", ErrDamaged, key)
}

// appendUnique adds items to the list under key of doc that it lacks,
// and reports each addition.
func appendUnique(doc map[string]any, key, label string, items []string, changes *[]string) error {
	if len(items) == 0 {
		return nil
	}
	var list []any
	switch v := doc[key].(type) {
	case nil:
	case []any:
		list = v
	default:
		return fmt.Errorf("%w: %s is not a list", ErrDamaged, label)
	}
	for _, it := range items {
		if slices.Contains(list, any(it)) {
			continue
		}
		list = append(list, it)
		*changes = append(*changes, fmt.Sprintf("%s: added %s", label, it))
	}
	doc[key] = list
	return nil
}

// MergePolicy folds the policy part of p into existing, the user's
// policy.json (nil when there is none), and returns the new file and a
// line per change. What is there stays: a rule is added once, a risk
// default the file sets already is kept (and said so), never loosened.
// An existing file that is not a JSON object of the expected shape is an
// error wrapping [ErrDamaged]; the caller must also have it loaded by
// [tools.LoadPolicy] first, which checks it strictly.
func MergePolicy(existing []byte, p *Plan) (out []byte, changes []string, err error) {
	doc, err := decodeExisting(existing)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range []struct {
		key  string
		list []string
	}{{"deny", p.Deny}, {"ask", p.Ask}, {"allow", p.Allow}} {
		if err := appendUnique(doc, l.key, l.key, l.list, &changes); err != nil {
			return nil, nil, err
		}
	}
	if len(p.Risks) > 0 {
		risks, err := section(doc, "risks")
		if err != nil {
			return nil, nil, err
		}
		for _, r := range slices.Sorted(maps.Keys(p.Risks)) {
			d := p.Risks[r]
			switch old, _ := risks[r].(string); {
			case old == d:
			case old != "" && !stricter(d, old):
				changes = append(changes, fmt.Sprintf("risks.%s: kept %q (the import has %q)", r, old, d))
			default:
				risks[r] = d
				changes = append(changes, fmt.Sprintf("risks.%s: %q", r, d))
			}
		}
	}
	if len(p.HTTPAllow) > 0 {
		h, err := section(doc, "http")
		if err != nil {
			return nil, nil, err
		}
		if err := appendUnique(h, "allow", "http.allow", p.HTTPAllow, &changes); err != nil {
			return nil, nil, err
		}
	}
	if p.ShellNetwork {
		sh, err := section(doc, "shell")
		if err != nil {
			return nil, nil, err
		}
		if on, _ := sh["network"].(bool); !on {
			sh["network"] = true
			changes = append(changes, "shell.network: true")
		}
	}
	out, err = marshal(doc)
	return out, changes, err
}

// MergeConfig folds the config.json part of p (model, endpoint, hooks,
// MCP servers) into existing, the user's config.json (nil when there is
// none). A setting the file has already is kept, and said so; a hook
// already there is not added twice; a server of a name the file has is
// kept as the file has it.
func MergeConfig(existing []byte, p *Plan) (out []byte, changes []string, err error) {
	doc, err := decodeExisting(existing)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range []struct{ key, v string }{{"model", p.Model}, {"base_url", p.BaseURL}} {
		if s.v == "" {
			continue
		}
		switch old, ok := doc[s.key]; {
		case old == s.v:
		case ok && old != nil && old != "":
			changes = append(changes, fmt.Sprintf("%s: kept the file's value (the import has %q)", s.key, s.v))
		default:
			doc[s.key] = s.v
			changes = append(changes, fmt.Sprintf("%s: %q", s.key, s.v))
		}
	}
	if len(p.Hooks) > 0 {
		hs, err := section(doc, "hooks")
		if err != nil {
			return nil, nil, err
		}
		for _, ev := range slices.Sorted(maps.Keys(p.Hooks)) {
			var have []hooks.Group
			if raw, ok := hs[string(ev)]; ok {
				if err := roundTrip(raw, &have); err != nil {
					return nil, nil, fmt.Errorf("%w: hooks.%s: %v", ErrDamaged, ev, err)
				}
			}
			list, _ := hs[string(ev)].([]any)
			for _, g := range p.Hooks[ev] {
				if slices.ContainsFunc(have, func(h hooks.Group) bool { return reflect.DeepEqual(norm(h), norm(g)) }) {
					continue
				}
				var v any
				if err := roundTrip(g, &v); err != nil {
					return nil, nil, err
				}
				list = append(list, v)
				changes = append(changes, fmt.Sprintf("hooks.%s: added %q for matcher %q", ev, short(g.Hooks[0].Command), short(g.Matcher)))
			}
			hs[string(ev)] = list
		}
	}
	if len(p.MCPServers) > 0 {
		servers, err := section(doc, "mcpServers")
		if err != nil {
			return nil, nil, err
		}
		for _, name := range slices.Sorted(maps.Keys(p.MCPServers)) {
			c := p.MCPServers[name]
			if raw, ok := servers[name]; ok {
				var have mcp.ServerConfig
				if roundTrip(raw, &have) == nil && reflect.DeepEqual(have, c) {
					continue
				}
				changes = append(changes, fmt.Sprintf("mcpServers.%s: kept the file's server of that name", keyPart(name)))
				continue
			}
			var v any
			if err := roundTrip(c, &v); err != nil {
				return nil, nil, err
			}
			servers[name] = v
			changes = append(changes, fmt.Sprintf("mcpServers.%s: added", keyPart(name)))
		}
	}
	out, err = marshal(doc)
	return out, changes, err
}

// norm is g in the form that compares: one hook's group, as the plan
// makes them.
func norm(g hooks.Group) hooks.Group {
	g.Matcher = strings.TrimSpace(g.Matcher)
	return g
}

func roundTrip(in, out any) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

func marshal(doc map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteFile replaces the user's file path with data atomically: a
// temporary file in the same directory, synced, checked by check (given
// its name) and renamed over path. A symlink at path is followed, so a
// dotfiles checkout keeps its link. Nothing is written when check fails.
func WriteFile(path string, data []byte, check func(tmp string) error) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".import-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(tmp.Name()); err != nil {
			return err
		}
	}
	return os.Rename(tmp.Name(), path)
}
