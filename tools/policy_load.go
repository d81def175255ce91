package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"time"

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
// project file can add asks and denies; it can never loosen anything: its
// allow rules and looser risk defaults are skipped with a warning. A rule
// that does not parse is skipped with a warning and the others apply. A
// file that is not valid JSON is an error: silently dropping its denies
// would fail open.
func LoadPolicy(profile, userFile, projectFile string) (*Policy, error) {
	p := DefaultPolicy(profile)
	for _, f := range []struct{ path, source string }{{userFile, "user"}, {projectFile, "project"}} {
		pj, err := readPolicyFile(f.path)
		if err != nil {
			return nil, err
		}
		if pj == nil {
			continue
		}
		p.merge(pj, f.source, f.path)
		if prof := pj.Profiles[profile]; prof != nil {
			p.merge(prof, f.source, f.path+" profile "+profile)
		}
	}
	return p, nil
}

func readPolicyFile(path string) (*policyJSON, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("policy %s: %v", path, err)
	}
	var pj policyJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pj); err != nil {
		return nil, fmt.Errorf("policy %s: %v", path, err)
	}
	return &pj, nil
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
		if project && p.CommandTimeout > 0 && d > p.CommandTimeout {
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
		if project && (r.Decision == "allow" || (r.Decision != "ask" && r.Decision != "deny")) {
			warn("shell command rule %q ignored: a project policy can only add asks and denies", r.Name)
			continue
		}
		p.ShellRules = append(p.ShellRules, r)
	}
}

func (p *Policy) mergeHTTP(h *httpJSON, project bool, warn func(string, ...any)) {
	if p.HTTP == nil {
		p.HTTP = &netguard.Policy{}
	}
	hp := p.HTTP
	hp.Allow = append(hp.Allow, h.Allow...)
	if err := hp.Validate(); err != nil {
		warn("http.allow: %v", err)
	}
	if project && (len(h.Methods) > 0 || h.AllowHTTP || len(h.AllowAddrs) > 0 || len(h.Headers) > 0 || h.MaxBytes > 0 || h.TimeoutS > 0) {
		warn("http settings other than allow ignored: a project policy can only name hosts (each fetch is still asked)")
		return
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
