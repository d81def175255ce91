package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/ext"
)

// vetCmd reads tool calls as JSON lines and prints one decision per line
// (T18): every gateway step up to and including policy, no side effects.
func (c *cli) vet(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	g := gatewayFlags(fs, c.getenv)
	var resolves multiFlag
	fs.Var(&resolves, "resolve", "HOST:PORT:ADDR: use ADDR for HOST:PORT (repeatable), like curl")
	start := fs.Bool("start", false, "start the MCP servers, to check calls of their tools against their schemas")
	explain := fs.Bool("explain", false, "print each call's explanation as text (the rule, where it was written, why), as `agentls why` does, instead of JSON lines")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 0 {
		return c.badUsage(name)
	}
	root, policy, err := g.load(tools.ProfileHeadless)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls vet: %v\n", err)
		return 1
	}
	for _, r := range resolves {
		host, addr, ok := cutResolve(r)
		if !ok {
			fmt.Fprintf(c.stderr, "agentls vet: --resolve %q: want HOST:PORT:ADDR\n", r)
			return 2
		}
		if policy.HTTP == nil {
			policy.HTTP = &netguard.Policy{}
		}
		if policy.HTTP.Resolve == nil {
			policy.HTTP.Resolve = map[string][]string{}
		}
		policy.HTTP.Resolve[host] = append(policy.HTTP.Resolve[host], addr)
	}
	type vetCall struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	var calls []*vetCall // nil entries are lines that are not a call
	var names []string
	in := bufio.NewScanner(c.stdin)
	in.Buffer(make([]byte, 64<<10), 4<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var c vetCall
		if err := json.Unmarshal([]byte(line), &c); err != nil || c.Tool == "" {
			calls = append(calls, nil)
			continue
		}
		calls, names = append(calls, &c), append(names, c.Tool)
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(c.stderr, "agentls vet: %v\n", err)
		return 1
	}
	// MCP tools: the real ones with --start, else placeholders that the
	// policy alone decides on. Hooks never run: vet has no side effects.
	xo := c.extOptions(root, warnLogger(c.stderr, false))
	extra := ext.Placeholders(xo, names)
	if *start {
		x := ext.Start(ctx, xo)
		defer x.Close()
		extra = x.Tools()
	}
	runner, err := builtinGateway(root, policy, nil, nil, nil, nil, extra)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls vet: %v\n", err)
		return 1
	}
	enc := json.NewEncoder(c.stdout)
	for i, call := range calls {
		if call == nil {
			notCall := tools.Verdict{Decision: tools.Deny, Code: tools.CodeInvalidArgs, Reason: `want {"tool": NAME, "args": {...}}`}
			if *explain {
				fmt.Fprintf(c.stdout, "call %d: not a call: %s\n\n", i+1, notCall.Reason)
				continue
			}
			_ = enc.Encode(notCall)
			continue
		}
		v, e := runner.VetExplain(ctx, call.Tool, string(call.Args))
		if *explain {
			fmt.Fprintf(c.stdout, "call %d: %s\n", i+1, e.String())
			continue
		}
		// The verdict's members as before (T18), and the explanation (E21).
		_ = enc.Encode(vetLine{Verdict: v, Explain: e})
	}
	return 0
}

// vetLine is one line of vet's JSON output: the verdict, and why.
type vetLine struct {
	tools.Verdict
	Explain *tools.Explanation `json:"explain"`
}

// cutResolve splits HOST:PORT:ADDR into "HOST:PORT" and ADDR (which may
// be an IPv6 address, with or without brackets).
func cutResolve(s string) (hostPort, addr string, ok bool) {
	i := strings.Index(s, ":")
	if i <= 0 {
		return "", "", false
	}
	j := strings.Index(s[i+1:], ":")
	if j <= 0 {
		return "", "", false
	}
	hostPort, addr = s[:i+1+j], s[i+2+j:]
	addr = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	return strings.ToLower(hostPort), addr, addr != ""
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// gateway holds the flags shared by vet and call.
type gateway struct {
	root, policy, profile *string
	fs                    *flag.FlagSet
	getenv                func(string) string
}

func gatewayFlags(fs *flag.FlagSet, getenv func(string) string) *gateway {
	g := &gateway{root: fs.String("root", ".", "workspace root"), fs: fs, getenv: getenv}
	g.policy = new(string)
	fs.Func("policy", "policy `FILE` (default: the user policy file)", func(v string) error {
		// Named on the command line, the file must be there: a missing
		// one would report the decisions of no policy at all (T18).
		fi, err := os.Stat(v)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", v, errors.Unwrap(err))
		case fi.IsDir():
			return fmt.Errorf("%s: a directory, not a policy file", v)
		}
		*g.policy = v
		return nil
	})
	g.profile = profileFlag(fs, "", "policy profile `NAME`: "+strings.Join(profiles, ", ")+" (default headless)")
	return g
}

// profiles are the policy profiles (T13): one per surface.
var profiles = []string{tools.ProfileEditor, tools.ProfileHeadless, tools.ProfileCI}

// profileFlag defines a --profile flag that takes only a known profile: an
// unknown one (a typo: --profile cl) is a bad command line (exit 2), not
// the defaults of a profile nobody wrote.
func profileFlag(fs *flag.FlagSet, value, usage string) *string {
	p := &value
	fs.Func("profile", usage, func(v string) error {
		if !slices.Contains(profiles, v) {
			return fmt.Errorf("unknown profile %q (want %s)", v, strings.Join(profiles, ", "))
		}
		*p = v
		return nil
	})
	return p
}

// load resolves --root and loads the policy for the workspace. Its
// warnings (rules skipped, project settings ignored) are printed as a run
// prints them (T13, T18): vet must say what a run would do.
func (g *gateway) load(defaultProfile string) (root string, policy *tools.Policy, err error) {
	if root, err = filepath.Abs(*g.root); err != nil {
		return "", nil, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return "", nil, fmt.Errorf("--root: %v", err)
	}
	profile := *g.profile
	if profile == "" {
		profile = defaultProfile
	}
	userFile := *g.policy
	if userFile == "" {
		userFile = userPolicyPath(g.getenv)
	} else if _, err := os.Stat(userFile); err != nil {
		return "", nil, fmt.Errorf("--policy %s: %w", userFile, errors.Unwrap(err)) // gone since the flag was read
	}
	policy, err = tools.LoadPolicy(profile, userFile, projectPolicyPath(root))
	if err != nil {
		return "", nil, err
	}
	for _, w := range policy.Warnings {
		fmt.Fprintf(g.fs.Output(), "agentls policy: %s\n", sandbox.Visible(w))
	}
	return root, policy, nil
}

// builtinGateway is the gateway of vet and call: every built-in tool over
// the workspace on disk at root, and extra (MCP) tools. approver answers
// its questions; edits (nil in vet) carries out approved edits; procs (nil
// in vet) runs commands; hooks (nil in vet, which has no side effects) run
// around each call.
func builtinGateway(root string, policy *tools.Policy, approver tools.Approver, edits tools.EditProposer, procs *exec.Runner,
	hooks tools.Hooks, extra []*tools.Tool) (*tools.Gateway, error) {
	reg := tools.NewRegistry()
	reg.MustRegister(builtin.All()...)
	allowed := reg.Names()
	for _, t := range extra {
		allowed = append(allowed, t.Name)
	}
	return tools.NewGateway(reg, &tools.GatewayOptions{Root: root, Workspace: tools.DiskWorkspace(root), Edits: edits,
		Exec: procs, Policy: policy, Approver: approver, Hooks: hooks, Tools: extra, Allowed: allowed})
}
