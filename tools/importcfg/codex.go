package importcfg

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentls/agentls/tools/mcp"
)

// Built-in providers of Codex and their endpoints.
var codexProviders = map[string]string{
	"openai": "https://api.openai.com/v1",
	"oss":    "http://localhost:11434/v1",
	"ollama": "http://localhost:11434/v1",
}

// Codex reads Codex's user configuration, config.toml in $CODEX_HOME or
// ~/.codex.
func Codex(env Env) *Report {
	r := &Report{Source: "codex"}
	rd := &reader{r: r, home: env.Home}
	dir := env.CodexDir
	if dir == "" {
		dir = filepath.Join(env.Home, ".codex")
	}
	if data, shown, ok := rd.user(filepath.Join(dir, "config.toml"), maxSettings); ok {
		if doc, err := decodeTOML(data); err != nil {
			rd.damaged(shown, err)
		} else {
			rd.codex(doc, origin{shown: shown, root: env.Root, home: env.Home})
		}
	}
	return r
}

// decodeTOML decodes data, a TOML document; its errors say where, never
// what (the file could hold a secret).
func decodeTOML(data []byte) (doc map[string]any, err error) {
	defer func() {
		if recover() != nil { // a parser's bug must not take the command down
			doc, err = nil, errors.New("not valid TOML")
		}
	}()
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("not valid TOML: line %d, column %d", row, col)
		}
		return nil, errors.New("not valid TOML")
	}
	if doc == nil {
		doc = map[string]any{}
	}
	return doc, nil
}

// codex reports the entries of config.toml.
func (rd *reader) codex(doc map[string]any, o origin) {
	p := &rd.r.Plan
	add := func(key string, v any, st Status, why string, to ...string) {
		rd.add(Entry{File: o.shown, Key: key, Value: describe(v), Status: st, Why: why, To: to})
	}
	provider, _ := doc["model_provider"].(string)
	if provider == "" {
		provider = "openai"
	}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		v := doc[k]
		key := keyPart(k)
		s, isString := v.(string)
		switch k {
		case "approval_policy":
			switch s {
			case "untrusted", "on-request":
				add(key, v, Honoured, "agentls asks before writes, commands, network and MCP tools unless a rule allows them; reads of the workspace run")
			case "on-failure":
				add(key, v, Ignored, "agentls asks before a command runs, not after it failed in the sandbox; its default, which asks, stays")
			case "never":
				add(key, v, Ignored, "never imported: it would run every command and change without a question; allow the commands you trust with rules instead")
			default:
				add(key, v, Ignored, "not a policy Codex or agentls knows")
			}
		case "sandbox_mode":
			switch s {
			case "workspace-write":
				add(key, v, Honoured, "agentls runs every command in its sandbox, with the workspace as its place to write")
			case "read-only":
				p.risk("write", "deny")
				add(key, v, Translated, "the file tools change nothing; commands still run in agentls's sandbox once approved", `policy.json risks: {"write": "deny"}`)
			case "danger-full-access":
				add(key, v, Ignored, "never imported: agentls runs commands in its sandbox always")
			default:
				add(key, v, Ignored, "not a mode Codex or agentls knows")
			}
		case "sandbox_workspace_write":
			rd.codexSandbox(v, o)
		case "mcp_servers":
			rd.codexServers(v, o)
		case "model":
			if !isString || strings.TrimSpace(s) == "" {
				add(key, v, Ignored, "not a model name")
				break
			}
			p.Model = s
			add(key, v, Translated, "", "config.json model: "+short(s))
		case "model_provider":
			rd.codexProvider(doc, provider, o)
		case "model_providers":
			m, ok := v.(map[string]any)
			if !ok {
				add(key, v, Ignored, "not a table")
				break
			}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				_, selected := doc["model_provider"]
				switch {
				case name != provider:
					add(join(key, name), m[name], Ignored, "not the provider model_provider selects")
				case !selected: // the built-in openai, redefined
					rd.codexProvider(doc, provider, o)
				}
			}
		case "projects":
			m, ok := v.(map[string]any)
			if !ok {
				add(key, v, Ignored, "not a table")
				break
			}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				why := "agentls asks to trust each of a project's hooks and servers, pinned to what they run; a blanket trust is not imported"
				if o.root == "" || filepath.Clean(name) != filepath.Clean(o.root) {
					why = "another workspace than this one; " + why
				}
				add(join(key, name), m[name], Ignored, why)
			}
		default:
			add(key, v, Ignored, whyNoEquivalent)
		}
	}
}

// codexProvider translates the selected provider's endpoint.
func (rd *reader) codexProvider(doc map[string]any, provider string, o origin) {
	p := &rd.r.Plan
	key := "model_provider"
	e := Entry{File: o.shown, Key: key, Value: describe(doc[key]), Status: Ignored}
	defer func() { rd.add(e) }()
	if v, ok := doc[key]; ok {
		if _, ok := v.(string); !ok {
			e.Why = "not a provider name"
			return
		}
	}
	table, _ := doc["model_providers"].(map[string]any)
	def, _ := table[provider].(map[string]any)
	if def == nil {
		if url, ok := codexProviders[provider]; ok {
			p.BaseURL = url
			e.Status, e.To = Translated, []string{"config.json base_url: " + url}
			e.Why = "Codex's built-in provider " + provider + "; the key comes from OPENAI_API_KEY or config.json api_key"
			return
		}
		e.Why = "a provider Codex's configuration does not define"
		return
	}
	e.Key = join("model_providers", provider)
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(def)) {
		switch k {
		case "base_url", "name":
		case "env_key":
			notes = append(notes, "env_key ignored: agentls reads the key from OPENAI_API_KEY or config.json api_key")
		case "wire_api":
			if w, _ := def[k].(string); w != "chat" {
				notes = append(notes, "wire_api "+short(w)+" ignored: agentls speaks the chat completions API")
			}
		default:
			notes = append(notes, fmt.Sprintf("%s ignored: %s", keyPart(k), whyNoEquivalent))
		}
	}
	url, _ := def["base_url"].(string)
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		e.Why = join2("no http(s) base_url", strings.Join(notes, "; "))
		return
	}
	p.BaseURL = url
	e.Value = short(url)
	e.Status, e.To, e.Why = Translated, []string{"config.json base_url: " + short(url)}, strings.Join(notes, "; ")
}

// codexSandbox reports [sandbox_workspace_write].
func (rd *reader) codexSandbox(v any, o origin) {
	m, ok := v.(map[string]any)
	if !ok {
		rd.ignore(o, "sandbox_workspace_write", v, "not a table")
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		e := Entry{File: o.shown, Key: join("sandbox_workspace_write", k), Value: describe(m[k]), Status: Ignored}
		switch k {
		case "network_access":
			on, ok := m[k].(bool)
			switch {
			case !ok:
				e.Why = "not true or false"
			case on:
				rd.r.Plan.ShellNetwork = true
				e.Status, e.To, e.Why = Translated, []string{"policy.json shell.network: true"}, "commands may use the network, still in agentls's sandbox"
			default:
				e.Status, e.Why = Honoured, "agentls's commands have no network unless the policy turns it on"
			}
		case "writable_roots":
			e.Why = "agentls's commands write inside the workspace only"
		default:
			e.Why = whyNoEquivalent
		}
		rd.add(e)
	}
}

// codexServers reports [mcp_servers.NAME] tables.
func (rd *reader) codexServers(v any, o origin) {
	m, ok := v.(map[string]any)
	if !ok {
		rd.ignore(o, "mcp_servers", v, "not a table")
		return
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		e := Entry{File: o.shown, Key: join("mcp_servers", name), Status: Ignored}
		t, ok := m[name].(map[string]any)
		if !ok {
			e.Value, e.Why = describe(m[name]), "not a table"
			rd.add(e)
			continue
		}
		var c mcp.ServerConfig
		var notes []string
		bad := ""
		str := func(k string) string {
			s, ok := t[k].(string)
			if !ok && bad == "" {
				bad = k + " is not a string"
			}
			return s
		}
		strs := func(k string) []string {
			list, ok := t[k].([]any)
			var out []string
			for _, x := range list {
				s, isStr := x.(string)
				ok = ok && isStr
				out = append(out, s)
			}
			if !ok && bad == "" {
				bad = k + " is not a list of strings"
			}
			return out
		}
		table := func(k string) map[string]string {
			tm, ok := t[k].(map[string]any)
			out := map[string]string{}
			for kk, x := range tm {
				s, isStr := x.(string)
				ok = ok && isStr
				out[kk] = s
			}
			if !ok && bad == "" {
				bad = k + " is not a table of strings"
			}
			return out
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			switch k {
			case "command":
				c.Command = str(k)
			case "args":
				c.Args = strs(k)
			case "env":
				c.Env = table(k)
			case "url":
				c.URL = str(k)
			case "http_headers":
				c.Headers = table(k)
			case "enabled":
				on, ok := t[k].(bool)
				if !ok && bad == "" {
					bad = "enabled is not true or false"
				}
				c.Disabled = !on
			case "tool_timeout_sec":
				switch n := t[k].(type) {
				case int64:
					c.Timeout = float64(n)
				case float64:
					c.Timeout = n
				default:
					if bad == "" {
						bad = "tool_timeout_sec is not a number"
					}
				}
			case "startup_timeout_sec", "startup_timeout_ms":
				notes = append(notes, k+" ignored: agentls waits for a server to start for 30 s")
			case "bearer_token_env_var", "env_http_headers":
				notes = append(notes, k+" ignored: agentls takes headers as written in config.json (headers)")
			default:
				notes = append(notes, fmt.Sprintf("%s ignored: %s", keyPart(k), whyNoEquivalent))
			}
		}
		e.Value = serverValue(&c)
		if bad != "" {
			e.Why = bad
			rd.add(e)
			continue
		}
		rd.addServer(&e, name, c, notes, "")
		rd.add(e)
	}
}
