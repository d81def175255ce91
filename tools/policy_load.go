package tools

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"path/filepath"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/sandbox/shell"
)

// policyJSON is the policy file format, the same for the user file and the
// project file (.agentls/policy.json):
//
//	{
//	  "allow": ["run_command(go test *)", "http_fetch(https://api.github.com/*)"],
//	  "ask":   ["write_file(**.md)"],
//	  "deny":  ["run_command(git push *)", "risk:mcp"],
//	  "risks": {"execute": "ask", "network": "deny"},
//	  "profiles": {"ci": {"deny": ["risk:execute"]}},
//	  "http": {"allow": ["https://api.github.com", "https://pkg.go.dev"], "methods": ["GET", "HEAD"]},
//	  "shell": {"timeout_seconds": 120, "network": false,
//	            "commands": [{"name": "make", "decision": "allow"}, {"name": "git", "args": ["push"], "decision": "deny"}]},
//	  "approval_timeout_seconds": 300
//	}
type policyJSON struct {
	Allow    []string               `json:"allow"`
	Ask      []string               `json:"ask"`
	Deny     []string               `json:"deny"`
	Risks    map[string]string      `json:"risks"`
	Profiles map[string]*policyJSON `json:"profiles"`
	HTTP     *httpJSON              `json:"http"`
	Shell    *struct {
		TimeoutSeconds int                 `json:"timeout_seconds"`
		Network        bool                `json:"network"`
		Commands       []shell.CommandRule `json:"commands"`
	} `json:"shell"`
	ApprovalTimeoutSeconds int `json:"approval_timeout_seconds"`
}

// httpJSON is the "http" section: the allowlist of http_fetch (B4).
// Credentials go in headers, per origin, in the user's file only; the
// model never sees or sets them.
type httpJSON struct {
	Allow      []string                     `json:"allow"`
	Methods    []string                     `json:"methods"`
	AllowHTTP  bool                         `json:"allow_http"`
	AllowAddrs []string                     `json:"allow_addrs"` // CIDR prefixes of private ranges to allow
	Headers    map[string]map[string]string `json:"headers"`
	MaxBytes   int64                        `json:"max_bytes"`
	TimeoutS   int                          `json:"timeout_seconds"`
}

// LoadPolicy builds the policy of a profile from the built-in defaults, the
// user's file and the project's file (either may be "" or missing). The
// project file can only narrow (T20): its deny and ask rules apply, its
// allow rules, looser risk defaults and settings that would reach further
// (more hosts, longer timeouts, network for commands) are skipped with a
// warning, and its http.allow list narrows the user's to their
// intersection. A rule that does not parse is skipped with a warning and
// the others apply. A file that is not valid JSON is an error: silently
// dropping its denies would fail open.
//
// The project file is untrusted input: projectFile is <root>/.agentls/policy.json
// (see [ProjectPolicyFile]) and is read confined to <root> with
// [ReadConfigFile], so a symlink out of the workspace, a FIFO, a device
// or a huge file is an error that never quotes the content. The user's
// file may be a symlink anywhere, but is read the same careful way.
func LoadPolicy(profile, userFile, projectFile string) (*Policy, error) {
	p := DefaultPolicy(profile)
	for _, f := range []struct{ path, source string }{{userFile, "user"}, {projectFile, "project"}} {
		pj, data, err := readPolicyFile(f.path, f.source == "project")
		if err != nil {
			return nil, err
		}
		if pj == nil {
			continue
		}
		n := len(p.Rules)
		p.merge(pj, f.source, f.path)
		used := map[int]bool{}
		setOrigins(p.Rules[n:], data, f.path, "", used)
		if prof := pj.Profiles[profile]; prof != nil {
			n = len(p.Rules)
			p.merge(prof, f.source, f.path+" profile "+profile)
			setOrigins(p.Rules[n:], data, f.path, " (profile "+profile+")", used)
		}
	}
	return p, nil
}

// readPolicyFile returns the decoded file and its bytes, which
// [setOrigins] searches for the line of each rule.
func readPolicyFile(name string, project bool) (*policyJSON, []byte, error) {
	if name == "" {
		return nil, nil, nil
	}
	var pj policyJSON
	var data []byte
	var err error
	shown := name
	if project {
		dir := filepath.Dir(name)
		shown = filepath.Base(dir) + "/" + filepath.Base(name)
		data, err = sandbox.ReadConfigFile(filepath.Dir(dir), shown, 0)
	} else {
		data, err = sandbox.ReadRegularFile(name, 0)
	}
	if err == nil {
		if err = DecodeConfig(data, &pj); err != nil {
			err = fmt.Errorf("%s: %w", shown, err)
		}
	}
	// Every error names the file already: the project's by its
	// workspace path, the user's by its own.
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("policy: %w", err)
	}
	return &pj, data, nil
}

// setOrigins records "file:line" on rules loaded from data: the line of
// the first not yet cited occurrence of the rule's JSON string, so two
// rules with the same text get their own lines. A rule not found (an
// escape written differently) cites the file alone.
func setOrigins(rules []Rule, data []byte, file, suffix string, used map[int]bool) {
	for i := range rules {
		rules[i].Origin = file + suffix
		quoted, _ := json.Marshal(rules[i].Text)
		from := 0
		for {
			at := bytes.Index(data[from:], quoted)
			if at < 0 {
				break
			}
			at += from
			if !used[at] {
				used[at] = true
				line := 1 + bytes.Count(data[:at], []byte("\n"))
				rules[i].Origin = fmt.Sprintf("%s:%d%s", file, line, suffix)
				break
			}
			from = at + 1
		}
	}
}

func (p *Policy) merge(pj *policyJSON, source, where string) {
	warn := func(format string, args ...any) {
		p.Warnings = append(p.Warnings, where+": "+fmt.Sprintf(format, args...))
	}
	add := func(list []string, d Decision) {
		for _, text := range list {
			if source == "project" && d == Allow {
				warn("allow rule %q ignored: a project policy can only add asks and denies", text)
				continue
			}
			r, err := ParseRule(text, d, source)
			if err != nil {
				warn("%v; rule skipped", err)
				continue
			}
			p.Rules = append(p.Rules, r)
		}
	}
	add(pj.Deny, Deny)
	add(pj.Ask, Ask)
	add(pj.Allow, Allow)
	for risk, ds := range pj.Risks {
		d := Decision(ds)
		if d != Allow && d != Ask && d != Deny {
			warn("risk %s: unknown decision %q; skipped", risk, ds)
			continue
		}
		old, known := p.Risks[Risk(risk)]
		if !known {
			warn("unknown risk %q; skipped", risk)
			continue
		}
		if source == "project" && stricter(old, d) {
			warn("risk %s: %s ignored: a project policy cannot loosen %s", risk, d, old)
			continue
		}
		p.Risks[Risk(risk)] = d
	}
	if pj.HTTP != nil {
		p.mergeHTTP(pj.HTTP, source == "project", warn)
	}
	if sh := pj.Shell; sh != nil {
		p.mergeShell(sh.TimeoutSeconds, sh.Network, sh.Commands, source, warn)
	}
	if s := pj.ApprovalTimeoutSeconds; s > 0 {
		if source == "project" && time.Duration(s)*time.Second > p.ApprovalTimeout {
			warn("approval_timeout_seconds ignored: a project policy cannot lengthen it")
		} else {
			p.ApprovalTimeout = time.Duration(s) * time.Second
		}
	}
}

func (p *Policy) mergeShell(timeout int, network bool, rules []shell.CommandRule, source string, warn func(string, ...any)) {
	project := source == "project"
	if timeout > 0 {
		d := time.Duration(timeout) * time.Second
		limit := p.CommandTimeout
		if limit <= 0 {
			limit = DefaultCommandTimeout
		}
		if project && d > limit {
			warn("shell.timeout_seconds ignored: a project policy cannot lengthen it")
		} else {
			p.CommandTimeout = d
		}
	}
	if network {
		if project {
			warn("shell.network ignored: a project policy cannot turn the network on")
		} else {
			p.CommandNetwork = true
		}
	}
	for _, r := range rules {
		if r.Name == "" {
			warn("shell command rule without a name skipped")
			continue
		}
		if !project {
			p.ShellRules = append(p.ShellRules, r)
			continue
		}
		if r.Decision != Ask && r.Decision != Deny {
			warn("shell command rule %q ignored: a project policy can only add asks and denies", r.Name)
			continue
		}
		p.ProjectShellRules = append(p.ProjectShellRules, r)
	}
}

func (p *Policy) mergeHTTP(h *httpJSON, project bool, warn func(string, ...any)) {
	if project {
		p.mergeProjectHTTP(h, warn)
		return
	}
	if p.HTTP == nil {
		p.HTTP = &netguard.Policy{}
	}
	hp := p.HTTP
	hp.Allow = append(hp.Allow, h.Allow...)
	if err := hp.Validate(); err != nil {
		warn("http.allow: %v", err)
	}
	if len(h.Methods) > 0 {
		hp.Methods = h.Methods
	}
	hp.AllowHTTP = hp.AllowHTTP || h.AllowHTTP
	for _, a := range h.AllowAddrs {
		pfx, err := netip.ParsePrefix(a)
		if err != nil {
			warn("http.allow_addrs: %q is not a CIDR prefix; skipped", a)
			continue
		}
		hp.AllowAddrs = append(hp.AllowAddrs, pfx)
	}
	if len(h.Headers) > 0 {
		hp.Headers = h.Headers
	}
	if h.MaxBytes > 0 {
		hp.MaxBytes = h.MaxBytes
	}
	if h.TimeoutS > 0 {
		hp.Timeout = time.Duration(h.TimeoutS) * time.Second
	}
}

// Defaults of netguard.Policy when MaxBytes and Timeout are zero, which a
// project may lower but not raise.
const (
	netDefaultMaxBytes = 2 << 20
	netDefaultTimeout  = 30 * time.Second
)

// mergeProjectHTTP applies a project's "http" section, which may only
// narrow (T20): its allow list restricts the user's to the intersection
// (a host only the project lists stays refused), smaller max_bytes and
// timeout_seconds apply, and everything that would reach further is
// skipped with a warning. Without a user allowlist the network stays off.
func (p *Policy) mergeProjectHTTP(h *httpJSON, warn func(string, ...any)) {
	if p.HTTP == nil {
		warn("http ignored: the user's policy allows no network, and a project policy cannot turn it on")
		return
	}
	hp := p.HTTP
	if len(h.Allow) > 0 {
		hp.Restrict = append(hp.Restrict, h.Allow...)
		if err := hp.Validate(); err != nil {
			warn("http.allow: %v", err)
		}
	}
	if len(h.Methods) > 0 || h.AllowHTTP || len(h.AllowAddrs) > 0 || len(h.Headers) > 0 {
		warn("http methods, allow_http, allow_addrs and headers ignored: a project policy can only narrow the user's allowlist")
	}
	if h.MaxBytes > 0 {
		if cur := cmp.Or(hp.MaxBytes, netDefaultMaxBytes); h.MaxBytes < cur {
			hp.MaxBytes = h.MaxBytes
		} else {
			warn("http.max_bytes ignored: a project policy cannot raise it")
		}
	}
	if h.TimeoutS > 0 {
		if d := time.Duration(h.TimeoutS) * time.Second; d < cmp.Or(hp.Timeout, netDefaultTimeout) {
			hp.Timeout = d
		} else {
			warn("http.timeout_seconds ignored: a project policy cannot lengthen it")
		}
	}
}
