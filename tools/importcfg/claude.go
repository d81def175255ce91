package importcfg

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
)

// origin is the file an entry comes from.
type origin struct {
	shown   string // the file, as shown
	project bool   // a file of the workspace: untrusted, it can only narrow
	// base is the directory a Claude rule's /path is relative to.
	base       string
	root, home string
}

// Reasons shared by many entries.
const (
	whyProjectAllow  = "a repository's settings cannot widen its rights: agentls never imports a project's allow rules"
	whyProjectHook   = "a project's hook: agentls runs a project's hooks only from .agentls/hooks.json once you trust them (agentls trust); import never makes a project's command your own hook, and writes no project file"
	whyProjectServer = "a project's MCP server: agentls starts a project's servers only from .agentls/mcp.json once you trust them (agentls trust); import never makes a project's server your own, and writes no project file"
	whyNoEquivalent  = "no agentls equivalent"
	noteEverywhere   = "agentls's user policy has no per-project section: this applies in every workspace"
)

// Claude reads Claude Code's settings of the user and of the workspace
// env.Root: ~/.claude/settings.json, ~/.claude.json (its MCP servers, the
// user's and this workspace's), and the project's .claude/settings.json,
// .claude/settings.local.json and .mcp.json.
func Claude(env Env) *Report {
	r := &Report{Source: "claude"}
	rd := &reader{r: r, home: env.Home}
	dir := env.ClaudeDir
	if dir == "" {
		dir = filepath.Join(env.Home, ".claude")
	}
	if data, shown, ok := rd.user(filepath.Join(dir, "settings.json"), maxSettings); ok {
		rd.claudeSettings(data, origin{shown: shown, base: dir, root: env.Root, home: env.Home})
	}
	claudeJSON := filepath.Join(env.Home, ".claude.json")
	if env.ClaudeDir != "" {
		claudeJSON = filepath.Join(env.ClaudeDir, ".claude.json")
	}
	if data, shown, ok := rd.user(claudeJSON, maxClaudeJSON); ok {
		rd.claudeState(data, origin{shown: shown, base: dir, root: env.Root, home: env.Home})
	}
	for _, rel := range []string{".claude/settings.json", ".claude/settings.local.json"} {
		if data, shown, ok := rd.project(env.Root, rel); ok {
			rd.claudeSettings(data, origin{shown: shown, project: true, base: env.Root, root: env.Root, home: env.Home})
		}
	}
	if data, shown, ok := rd.project(env.Root, ".mcp.json"); ok {
		o := origin{shown: shown, project: true, root: env.Root, home: env.Home}
		if doc, ok := rd.object(data, shown); ok {
			for _, k := range slices.Sorted(maps.Keys(doc)) {
				if k == "mcpServers" {
					rd.servers(doc[k], k, o, "")
					continue
				}
				rd.add(Entry{File: shown, Key: keyPart(k), Value: describe(doc[k]), Status: Ignored, Why: whyNoEquivalent})
			}
		}
	}
	return r
}

// object decodes data, a JSON object; a file that is not one is marked
// unreadable, and none of it is imported.
func (rd *reader) object(data []byte, shown string) (map[string]any, bool) {
	var v any
	if err := tools.DecodeUserConfig(data, &v); err != nil {
		rd.damaged(shown, err)
		return nil, false
	}
	doc, ok := v.(map[string]any)
	if !ok {
		rd.damaged(shown, errors.New("not a JSON object"))
		return nil, false
	}
	return doc, true
}

// claudeSettings reports the entries of one settings.json.
func (rd *reader) claudeSettings(data []byte, o origin) {
	doc, ok := rd.object(data, o.shown)
	if !ok {
		return
	}
	rd.claudeSettingsDoc(doc, o)
}

func (rd *reader) claudeSettingsDoc(doc map[string]any, o origin) {
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		v := doc[k]
		e := Entry{File: o.shown, Key: keyPart(k), Value: describe(v), Status: Ignored}
		switch k {
		case "permissions":
			rd.permissions(v, o)
			continue
		case "hooks":
			rd.hooks(v, o)
			continue
		case "mcpServers":
			rd.servers(v, k, o, "")
			continue
		case "env":
			m, ok := v.(map[string]any)
			if !ok {
				e.Why = "not an object"
				break
			}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				rd.add(Entry{File: o.shown, Key: join("env", name), Status: Ignored,
					Why: "agentls sets no environment variables from its configuration: commands and hooks run with a scrubbed environment (the value is not shown)"})
			}
			continue
		case "model":
			e.Why = "a Claude model: agentls talks to an OpenAI-compatible endpoint, set by model and base_url in its config.json"
		case "$schema":
			e.Why = "the file's JSON schema reference: nothing to import"
		case "enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers":
			e.Why = "agentls does not start a project's .mcp.json servers: a project's servers come from .agentls/mcp.json and run once trusted (agentls trust)"
		case "disableAllHooks":
			e.Why = "agentls has no switch that turns every hook off; remove the hooks from config.json instead"
		default:
			e.Why = whyNoEquivalent
		}
		rd.add(e)
	}
}

// permissions reports the "permissions" object.
func (rd *reader) permissions(v any, o origin) {
	m, ok := v.(map[string]any)
	if !ok {
		rd.ignore(o, "permissions", v, "not an object")
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		key := join("permissions", k)
		switch k {
		case "allow", "ask", "deny":
			list, ok := m[k].([]any)
			if !ok {
				rd.ignore(o, key, m[k], "not a list")
				continue
			}
			for i, item := range list {
				e := Entry{File: o.shown, Key: fmt.Sprintf("%s[%d]", key, i), Value: describe(item)}
				text, ok := item.(string)
				if !ok {
					e.Status, e.Why = Ignored, "not a string"
				} else {
					rd.claudeRule(&e, text, tools.Decision(k), o)
				}
				rd.add(e)
			}
		case "defaultMode":
			e := Entry{File: o.shown, Key: key, Value: describe(m[k])}
			mode, _ := m[k].(string)
			rd.defaultMode(&e, mode, o)
			rd.add(e)
		case "additionalDirectories":
			list, _ := m[k].([]any)
			if len(list) == 0 {
				rd.ignore(o, key, m[k], "not a list of directories")
			}
			for i, d := range list {
				rd.add(Entry{File: o.shown, Key: fmt.Sprintf("%s[%d]", key, i), Value: describe(d), Status: Ignored,
					Why: "agentls's tools work inside the workspace root only; open a workspace that holds the directory instead"})
			}
		case "disableBypassPermissionsMode":
			rd.add(Entry{File: o.shown, Key: key, Value: describe(m[k]), Status: Honoured, Why: "agentls has no mode that bypasses its permissions"})
		default:
			rd.add(Entry{File: o.shown, Key: key, Value: describe(m[k]), Status: Ignored, Why: whyNoEquivalent})
		}
	}
}

// defaultMode translates permissions.defaultMode.
func (rd *reader) defaultMode(e *Entry, mode string, o origin) {
	p := &rd.r.Plan
	e.Status = Ignored
	switch mode {
	case "default":
		e.Status, e.Why = Honoured, "agentls asks before writes, commands, network and MCP tools unless a rule allows them"
	case "acceptEdits":
		if o.project {
			e.Why = "a repository's settings cannot widen its rights: a project's mode that accepts edits is never imported"
			return
		}
		p.risk("write", "allow")
		e.Status, e.To = Translated, []string{`policy.json risks: {"write": "allow"}`}
		e.Why = "file changes land without a question; control files (.vscode/settings.json, .git/…) are still asked about"
	case "plan":
		e.Why = "agentls's plan is a command (agentls plan, or the editor's Plan), not a standing mode"
	case "bypassPermissions":
		e.Why = "never imported: agentls has no mode that bypasses its permissions"
	case "dontAsk":
		if o.project {
			e.Why = "a project's mode that denies every call not allowed would apply in every workspace (" + noteEverywhere + "); not imported"
			return
		}
		for _, r := range []string{"write", "execute", "network", "mcp"} {
			p.risk(r, "deny")
		}
		e.Status, e.To = Translated, []string{`policy.json risks: {"write": "deny", "execute": "deny", "network": "deny", "mcp": "deny"}`}
		e.Why = "what no allow rule covers is denied, not asked"
	default:
		e.Why = "not a mode Claude Code or agentls knows"
	}
}

// claudeTools are Claude Code's tools that agentls has no counterpart of.
var claudeOnly = map[string]bool{
	"WebSearch": true, "Task": true, "Agent": true, "TodoWrite": true, "TodoRead": true, "ExitPlanMode": true,
	"BashOutput": true, "KillShell": true, "KillBash": true, "SlashCommand": true, "Skill": true,
}

// claudeRule translates one permission rule of Claude Code into e.
func (rd *reader) claudeRule(e *Entry, text string, d tools.Decision, o origin) {
	e.Status = Ignored
	if d == tools.Allow && o.project {
		e.Why = whyProjectAllow
		return
	}
	name, spec, hasSpec := strings.Cut(strings.TrimSpace(text), "(")
	if hasSpec {
		var ok bool
		if spec, ok = strings.CutSuffix(spec, ")"); !ok || spec == "" {
			e.Why = "not a Claude Code rule: want Tool or Tool(pattern)"
			return
		}
	}
	var rules, origins []string
	var note string
	outside := false
	switch {
	case name == "Bash":
		rules, note = bashRules(spec, d)
	case name == "Read":
		rules, outside, note = pathRules(spec, d, o, "read_file")
		if d != tools.Allow && len(rules) > 0 {
			note = join2(note, "search and list_dir are not covered: they read what they find without a path rule on each file")
		}
	case name == "Edit" || name == "Write" || name == "MultiEdit" || name == "NotebookEdit":
		rules, outside, note = pathRules(spec, d, o, "edit_file", "write_file")
	case name == "Grep" || name == "Glob" || name == "LS":
		if hasSpec {
			note = "a pattern on " + name + " has no agentls form"
			break
		}
		rules = []string{map[string]string{"Grep": "search", "Glob": "list_dir", "LS": "list_dir"}[name]}
	case name == "WebFetch":
		rules, origins, note = fetchRules(spec, hasSpec, d)
	case strings.HasPrefix(name, "mcp__"):
		if hasSpec {
			note = "a pattern on an MCP tool has no agentls form"
			break
		}
		rules, note = mcpRule(name)
	case claudeOnly[name]:
		note = "agentls has no " + name + " tool"
	default:
		note = "not a Claude Code tool agentls knows"
	}
	switch {
	case outside && d == tools.Allow:
		e.Why = "agentls's file tools never reach outside the workspace: nothing to allow"
		return
	case outside:
		e.Status, e.Why = Honoured, "agentls's file tools never reach outside the workspace"
		return
	case len(rules) == 0:
		e.Why = note
		return
	}
	for _, r := range rules {
		if _, err := tools.ParseRule(r, d, "user"); err != nil {
			e.Why = "no agentls form: " + err.Error()
			return
		}
	}
	p := &rd.r.Plan
	for _, r := range rules {
		p.rule(d, r)
		e.To = append(e.To, fmt.Sprintf("policy.json %s: %s", d, r))
	}
	for _, h := range origins {
		if !slices.Contains(p.HTTPAllow, h) {
			p.HTTPAllow = append(p.HTTPAllow, h)
		}
		e.To = append(e.To, "policy.json http.allow: "+h)
	}
	if o.project {
		note = join2(note, noteEverywhere)
	}
	e.Status, e.Why = Translated, note
}

func join2(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// bashRules are the run_command rules of Bash(spec). Claude Code's
// "prefix:*" is the prefix alone or followed by arguments; its * matches
// anything, which agentls's ** does in every pattern.
func bashRules(spec string, d tools.Decision) ([]string, string) {
	if spec == "" {
		if d == tools.Allow {
			return []string{"run_command"}, "every command runs without a question, as in Claude Code (in agentls's sandbox)"
		}
		return []string{"run_command"}, ""
	}
	note := "matched against each simple command of a line, as Claude Code does"
	if strings.Contains(spec, "?") {
		if d == tools.Allow {
			return nil, "? is a wildcard in agentls patterns but plain text in Claude Code's: the rule would allow more"
		}
		note = join2(note, "? matches any one character in agentls: the rule covers a little more")
	}
	star := func(s string) string {
		s = strings.ReplaceAll(s, "**", "*")
		return strings.ReplaceAll(s, "*", "**")
	}
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		prefix = strings.TrimSpace(prefix)
		if prefix == "" {
			return []string{"run_command"}, note
		}
		return []string{"run_command(" + star(prefix) + ")", "run_command(" + star(prefix) + " **)"}, note
	}
	return []string{"run_command(" + star(spec) + ")"}, note
}

// pathRules are the rules of a Read or Edit rule's gitignore-style
// pattern, for the file tools named. outside is set when the pattern
// names files outside the workspace, which agentls's file tools never
// reach.
func pathRules(spec string, d tools.Decision, o origin, names ...string) (rules []string, outside bool, note string) {
	if spec == "" {
		return names, false, ""
	}
	if strings.ContainsAny(spec, "[]\\!") {
		return nil, false, "character classes, escapes and negation in a path pattern have no agentls form"
	}
	if d == tools.Allow && strings.ContainsAny(spec, " \t") && strings.Contains(strings.ReplaceAll(spec, "**", ""), "*") {
		return nil, false, "in a pattern with spaces agentls's * crosses directories: the rule would allow more"
	}
	var abs string
	anchored := false
	switch {
	case strings.HasPrefix(spec, "//"):
		abs = spec[1:]
	case strings.HasPrefix(spec, "~/"):
		if o.home == "" {
			return nil, true, ""
		}
		abs = o.home + spec[1:]
	case strings.HasPrefix(spec, "/"):
		if o.base == "" {
			return nil, true, ""
		}
		abs = filepath.ToSlash(o.base) + spec
	default:
		rel := strings.TrimPrefix(spec, "./")
		anchored = rel != spec || strings.Contains(strings.TrimSuffix(rel, "/"), "/")
		spec = rel
	}
	if abs != "" {
		root := filepath.ToSlash(o.root)
		if root == "" {
			return nil, true, ""
		}
		rel, ok := strings.CutPrefix(path.Clean(abs), strings.TrimSuffix(root, "/")+"/")
		if !ok {
			return nil, true, ""
		}
		spec, anchored = rel, true
	}
	dir := strings.HasSuffix(spec, "/")
	spec = path.Clean(spec)
	if spec == ".." || strings.HasPrefix(spec, "../") {
		return nil, true, ""
	}
	if spec == "." {
		spec, dir = "", true
	}
	pats := []string{spec}
	switch {
	case spec == "":
		pats = []string{"**"}
	case dir:
		pats = []string{spec + "/**"}
	}
	if !anchored && !strings.HasPrefix(pats[0], "**") {
		pats = append(pats, "**/"+pats[0])
	} else if rest, ok := strings.CutPrefix(pats[0], "**/"); ok {
		pats = append(pats, rest)
	}
	for _, n := range names {
		for _, p := range pats {
			rules = append(rules, n+"("+p+")")
		}
	}
	return rules, false, "paths are relative to the workspace root"
}

// hostName is a host name a WebFetch domain rule may name.
var hostName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)
}) // compiled on first use (TestInit_Issue16)

// fetchRules are the http_fetch rules of WebFetch(spec), and for an allow
// the origins the user's http.allow list must hold.
func fetchRules(spec string, hasSpec bool, d tools.Decision) (rules, origins []string, note string) {
	if !hasSpec {
		if d == tools.Allow {
			return []string{"http_fetch"}, nil, "agentls still fetches only from the hosts in your policy's http.allow list, which this does not add to"
		}
		return []string{"http_fetch"}, nil, ""
	}
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok || !hostName().MatchString(host) {
		return nil, nil, "only WebFetch(domain:HOST) has an agentls form"
	}
	host = strings.ToLower(host)
	if strings.HasPrefix(host, "*.") {
		if d == tools.Allow {
			return nil, nil, "agentls's http.allow list names hosts exactly: a wildcard domain is not imported as allowed"
		}
		return []string{"http_fetch(http*://" + host + "/**)", "http_fetch(http*://" + host + ":**)"}, nil, ""
	}
	if d == tools.Allow {
		return []string{"http_fetch(https://" + host + "/**)"}, []string{"https://" + host}, "https only, as agentls's allowlist defaults to"
	}
	return []string{"http_fetch(http*://" + host + "/**)", "http_fetch(http*://" + host + ":**)"}, nil, ""
}

// mcpRule is the rule of a Claude Code MCP tool name, mcp__SERVER__TOOL:
// agentls names MCP tools the same way.
func mcpRule(name string) ([]string, string) {
	server, tool, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
	if !ok || tool == "" || tool == "*" {
		return nil, "a rule on every tool of a server has no agentls form (its rules name one tool): disable or remove the server instead"
	}
	n := mcp.ToolName(server, tool)
	if n == "" {
		return nil, "not an MCP tool name agentls can form"
	}
	return []string{n}, ""
}

// agentlsTools are the built-in tools' names and Claude Code's names that
// agentls's hook matchers take for them.
var agentlsTools = map[string]bool{
	"run_command": true, "edit_file": true, "write_file": true, "read_file": true, "search": true, "list_dir": true,
	"http_fetch": true, "sql_query": true, "calculator": true, "human_confirm": true, "report_finding": true,
	"Bash": true, "Edit": true, "MultiEdit": true, "Write": true, "Read": true, "Grep": true, "Glob": true, "LS": true, "WebFetch": true,
}

var plainMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$`) }) // compiled on first use (TestInit_Issue16)

// hooks reports the "hooks" object: each hook command is one entry.
func (rd *reader) hooks(v any, o origin) {
	m, ok := v.(map[string]any)
	if !ok {
		rd.ignore(o, "hooks", v, "not an object")
		return
	}
	for _, event := range slices.Sorted(maps.Keys(m)) {
		key := join("hooks", event)
		groups, ok := m[event].([]any)
		if !ok {
			rd.ignore(o, key, m[event], "not a list of matcher groups")
			continue
		}
		for gi, gv := range groups {
			gkey := fmt.Sprintf("%s[%d]", key, gi)
			g, ok := gv.(map[string]any)
			if !ok {
				rd.ignore(o, gkey, gv, "not an object")
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(g)) {
				if k != "matcher" && k != "hooks" && k != "onFailure" {
					rd.add(Entry{File: o.shown, Key: join(gkey, k), Value: describe(g[k]), Status: Ignored, Why: whyNoEquivalent})
				}
			}
			list, ok := g["hooks"].([]any)
			if !ok {
				rd.ignore(o, gkey+".hooks", g["hooks"], "not a list of hooks")
				continue
			}
			matcher, _ := g["matcher"].(string)
			groupFail, _ := g["onFailure"].(string)
			for hi, hv := range list {
				e := Entry{File: o.shown, Key: fmt.Sprintf("%s.hooks[%d]", gkey, hi), Value: describe(hv), Status: Ignored}
				rd.hook(&e, hooks.Event(event), matcher, groupFail, hv, o)
				rd.add(e)
			}
		}
	}
}

// hook translates one hook command of event in the group of matcher.
func (rd *reader) hook(e *Entry, event hooks.Event, matcher, groupFail string, hv any, o origin) {
	h, ok := hv.(map[string]any)
	if !ok {
		e.Why = "not an object"
		return
	}
	if c, ok := h["command"].(string); ok {
		e.Value = masked(c)
	}
	if o.project {
		e.Why = whyProjectHook
		return
	}
	switch event {
	case hooks.PreToolUse, hooks.PostToolUse, hooks.SessionStart, hooks.Stop:
	default:
		e.Why = fmt.Sprintf("agentls has no %s event (it has PreToolUse, PostToolUse, SessionStart and Stop)", short(string(event)))
		return
	}
	var notes []string
	var c hooks.Command
	for _, k := range slices.Sorted(maps.Keys(h)) {
		switch k {
		case "type":
			c.Type, _ = h[k].(string)
		case "command":
			c.Command, _ = h[k].(string)
		case "timeout":
			c.Timeout, _ = h[k].(float64)
		case "onFailure":
			c.OnFailure, _ = h[k].(string)
		default:
			notes = append(notes, fmt.Sprintf("key %s ignored: %s", keyPart(k), whyNoEquivalent))
		}
	}
	if c.Type != "command" {
		e.Why = fmt.Sprintf("agentls runs command hooks only, not type %q", short(c.Type))
		return
	}
	g := hooks.Group{Matcher: matcher, Hooks: []hooks.Command{c}, OnFailure: groupFail}
	set := hooks.New(&hooks.Options{User: hooks.Config{event: {g}}, Environ: []string{}})
	if set.Len() == 0 || slices.ContainsFunc(set.Warnings(), func(w string) bool { return strings.Contains(w, "denies every call") }) {
		e.Why = "agentls cannot run it: " + strings.Join(set.Warnings(), "; ")
		return
	}
	notes = append(notes, set.Warnings()...)
	if m := strings.TrimSpace(matcher); plainMatcher().MatchString(m) && (event == hooks.PreToolUse || event == hooks.PostToolUse) {
		for _, n := range strings.Split(m, "|") {
			if !agentlsTools[n] && !strings.HasPrefix(n, "mcp__") {
				notes = append(notes, fmt.Sprintf("the matcher names %s, which agentls has no tool for", short(n)))
			}
		}
	}
	switch event {
	case hooks.PreToolUse:
		notes = append(notes, "as in Claude Code, exit 2 blocks the call with stderr as the reason; any other failure lets it go on unless onFailure is \"block\"")
	case hooks.PostToolUse:
		notes = append(notes, "exit 2 withholds the call's result from the model, with stderr as the reason (Claude Code shows stderr beside the result)")
	case hooks.SessionStart:
		if m := strings.TrimSpace(matcher); m != "" && m != "*" && !strings.Contains(m, "startup") {
			e.Why = fmt.Sprintf("agentls runs SessionStart hooks when a run starts (source \"startup\") and has no %q start", short(m))
			return
		}
		notes = append(notes, "runs when each agentls run starts; it only observes")
	case hooks.Stop:
		notes = append(notes, "runs when an agentls run ends; it only observes: exit 2 does not make the run go on as in Claude Code")
	}
	if event == hooks.PreToolUse || event == hooks.PostToolUse {
		notes = append(notes, "tool_input holds agentls's arguments (run_command's command as Bash's; the file tools' path, not file_path)")
	}
	p := &rd.r.Plan
	if p.Hooks == nil {
		p.Hooks = hooks.Config{}
	}
	// One group per hook, so that the hooks that are not imported leave
	// the matcher's others as they are.
	p.Hooks[event] = append(p.Hooks[event], g)
	to := fmt.Sprintf("config.json hooks.%s (matcher %q)", event, short(matcher))
	if c.OnFailure != "" || groupFail != "" {
		to += fmt.Sprintf(", onFailure %q", short(cmpOr(c.OnFailure, groupFail)))
	}
	e.Status, e.To, e.Why = Translated, []string{to}, strings.Join(notes, "; ")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// servers reports an "mcpServers" object found at key. scope, when set,
// says where the servers were configured in Claude Code ("local").
func (rd *reader) servers(v any, key string, o origin, scope string) {
	m, ok := v.(map[string]any)
	if !ok {
		rd.ignore(o, key, v, "not an object")
		return
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		e := Entry{File: o.shown, Key: join(key, name), Status: Ignored}
		rd.server(&e, name, m[name], o, scope)
		rd.add(e)
	}
}

// server translates one MCP server entry.
func (rd *reader) server(e *Entry, name string, v any, o origin, scope string) {
	raw, ok := v.(map[string]any)
	if !ok {
		e.Value, e.Why = describe(v), "not an object"
		return
	}
	data, err := json.Marshal(raw)
	if err != nil {
		e.Why = "not an MCP server entry"
		return
	}
	var c mcp.ServerConfig
	if err := tools.DecodeUserConfig(data, &c); err != nil {
		e.Why = "not an MCP server entry: " + err.Error()
		return
	}
	e.Value = serverValue(&c)
	if o.project {
		e.Why = whyProjectServer
		return
	}
	rd.addServer(e, name, c, tools.UnknownKeys(data, &c), scope)
}

// addServer checks c and puts it in the plan under name.
func (rd *reader) addServer(e *Entry, name string, c mcp.ServerConfig, notes []string, scope string) {
	if why := checkServer(&c); why != "" {
		e.Why = why
		return
	}
	p := &rd.r.Plan
	if _, dup := p.MCPServers[name]; dup {
		e.Why = "a server of the same name was imported already, from a narrower scope that takes precedence"
		return
	}
	if serverExpands(&c) {
		notes = append(notes, "agentls does not expand ${VAR} in a server's settings: the text is passed as written")
	}
	if scope != "" {
		notes = append(notes, "configured for this workspace only in Claude Code; agentls's user servers are available in every workspace (their tools are still asked about)")
	}
	if len(c.Env) > 0 || len(c.Headers) > 0 {
		notes = append(notes, "env and header values are copied, not shown")
	}
	if strings.Contains(e.Value, "***") {
		notes = append(notes, "what looks like a credential is shown as ***, and copied as written")
	}
	p.server(name, c)
	e.Status, e.To, e.Why = Translated, []string{"config.json mcpServers." + keyPart(name)}, strings.Join(notes, "; ")
}

// checkServer says why agentls cannot start c, or "".
func checkServer(c *mcp.ServerConfig) string {
	switch c.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	case "sse":
		return "the SSE transport is not supported by agentls (stdio and streamable HTTP are)"
	default:
		return fmt.Sprintf("transport %q is not supported by agentls", short(c.Type))
	}
	if strings.TrimSpace(c.Command) == "" && c.URL == "" {
		return "neither a command nor a url"
	}
	if c.Command == "" && !strings.HasPrefix(c.URL, "https://") && !strings.HasPrefix(c.URL, "http://") {
		return "the url is not an http(s) URL"
	}
	if c.Timeout < 0 {
		return "negative timeout"
	}
	return ""
}

func serverExpands(c *mcp.ServerConfig) bool {
	all := slices.Concat([]string{c.Command, c.URL}, c.Args, slices.Collect(maps.Values(c.Env)), slices.Collect(maps.Values(c.Headers)))
	for _, s := range all {
		if strings.Contains(s, "${") {
			return true
		}
	}
	return false
}

// serverValue describes a server without its secrets: env and header
// values are left out.
func serverValue(c *mcp.ServerConfig) string {
	var s string
	if c.Command != "" {
		s = strings.Join(append([]string{c.Command}, c.Args...), " ")
	} else {
		s = c.URL
	}
	if len(c.Env) > 0 {
		s += " (env " + strings.Join(slices.Sorted(maps.Keys(c.Env)), ", ") + ")"
	}
	if len(c.Headers) > 0 {
		s += " (headers " + strings.Join(slices.Sorted(maps.Keys(c.Headers)), ", ") + ")"
	}
	return masked(s)
}

// claudeState reports ~/.claude.json: Claude Code's state, of which the
// MCP servers — the user's, and this workspace's local ones — are
// settings; the rest is summed up in one entry per level.
func (rd *reader) claudeState(data []byte, o origin) {
	doc, ok := rd.object(data, o.shown)
	if !ok {
		return
	}
	var others []string
	// This workspace's servers first: the local scope takes precedence
	// over the user's.
	if projects, ok := doc["projects"].(map[string]any); ok {
		rd.claudeProjects(projects, o)
	} else if v, ok := doc["projects"]; ok {
		rd.ignore(o, "projects", v, "not an object")
	}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		switch k {
		case "mcpServers":
			rd.servers(doc[k], k, o, "")
		case "projects":
		default:
			others = append(others, keyPart(k))
		}
	}
	if len(others) > 0 {
		rd.add(Entry{File: o.shown, Key: fmt.Sprintf("(%d other keys)", len(others)), Value: short(strings.Join(others, ", ")),
			Status: Ignored, Why: "Claude Code's own state (account, history, tips), not settings"})
	}
}

func (rd *reader) claudeProjects(projects map[string]any, o origin) {
	n := 0
	for _, k := range slices.Sorted(maps.Keys(projects)) {
		if !sameDir(k, o.root) {
			n++
			continue
		}
		key := join("projects", k)
		pm, ok := projects[k].(map[string]any)
		if !ok {
			rd.ignore(o, key, projects[k], "not an object")
			continue
		}
		var others []string
		for _, pk := range slices.Sorted(maps.Keys(pm)) {
			switch pk {
			case "mcpServers":
				rd.servers(pm[pk], join(key, pk), o, "local")
			case "allowedTools":
				list, _ := pm[pk].([]any)
				for i, t := range list {
					rd.add(Entry{File: o.shown, Key: fmt.Sprintf("%s.allowedTools[%d]", key, i), Value: describe(t), Status: Ignored,
						Why: "allowed for this workspace only in Claude Code; agentls's user policy applies in every workspace, so importing it would widen it"})
				}
				if len(list) == 0 {
					others = append(others, pk)
				}
			case "enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers":
				rd.add(Entry{File: o.shown, Key: join(key, pk), Value: describe(pm[pk]), Status: Ignored,
					Why: "agentls does not start a project's .mcp.json servers: a project's servers come from .agentls/mcp.json and run once trusted (agentls trust)"})
			case "hasTrustDialogAccepted":
				rd.add(Entry{File: o.shown, Key: join(key, pk), Value: describe(pm[pk]), Status: Ignored,
					Why: "agentls asks to trust each of a project's hooks and servers, pinned to what they run; a blanket trust is not imported"})
			default:
				others = append(others, keyPart(pk))
			}
		}
		if len(others) > 0 {
			rd.add(Entry{File: o.shown, Key: fmt.Sprintf("%s (%d other keys)", key, len(others)), Value: short(strings.Join(others, ", ")),
				Status: Ignored, Why: "Claude Code's own state for this workspace, not settings"})
		}
	}
	if n > 0 {
		rd.add(Entry{File: o.shown, Key: fmt.Sprintf("projects (%d others)", n), Status: Ignored, Why: "other workspaces than this one"})
	}
}

// sameDir reports whether the directory a project key of ~/.claude.json
// names is root (which is symlink-free): Claude Code records the
// directory it was started in, which may lead to root through a link.
func sameDir(k, root string) bool {
	if root == "" || !filepath.IsAbs(k) {
		return false
	}
	if filepath.Clean(k) == filepath.Clean(root) {
		return true
	}
	real, err := filepath.EvalSymlinks(k)
	return err == nil && real == filepath.Clean(root)
}
