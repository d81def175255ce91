package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools"
)

// vetCmd reads tool calls as JSON lines and prints one decision per line
// (T18): every gateway step up to and including policy, no side effects.
func vetCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("vet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	g := gatewayFlags(fs, getenv)
	var resolves multiFlag
	fs.Var(&resolves, "resolve", "HOST:PORT:ADDR: use ADDR for HOST:PORT (repeatable), like curl")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: agentls vet --root DIR [--policy FILE] [--profile NAME] [--resolve HOST:PORT:ADDR]... < calls.jsonl")
		return 2
	}
	runner, err := g.runner(tools.ProfileHeadless, nil, nil)
	if err != nil {
		fmt.Fprintf(stderr, "agentls vet: %v\n", err)
		return 1
	}
	for _, r := range resolves {
		host, addr, ok := cutResolve(r)
		if !ok {
			fmt.Fprintf(stderr, "agentls vet: --resolve %q: want HOST:PORT:ADDR\n", r)
			return 2
		}
		if g.env.HTTP == nil {
			g.env.HTTP = &netguard.Policy{}
		}
		if g.env.HTTP.Resolve == nil {
			g.env.HTTP.Resolve = map[string][]string{}
		}
		g.env.HTTP.Resolve[host] = append(g.env.HTTP.Resolve[host], addr)
	}
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 64<<10), 4<<20)
	enc := json.NewEncoder(stdout)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var call struct {
			Tool string          `json:"tool"`
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal([]byte(line), &call); err != nil || call.Tool == "" {
			_ = enc.Encode(tools.Verdict{Decision: tools.Deny, Code: tools.CodeInvalidArgs, Reason: `want {"tool": NAME, "args": {...}}`})
			continue
		}
		_ = enc.Encode(runner.Vet(ctx, call.Tool, string(call.Args)))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(stderr, "agentls vet: %v\n", err)
		return 1
	}
	return 0
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
	getenv                func(string) string
	env                   *tools.Env
}

func gatewayFlags(fs *flag.FlagSet, getenv func(string) string) *gateway {
	return &gateway{
		root:    fs.String("root", ".", "workspace root"),
		policy:  fs.String("policy", "", "policy file (default: the user policy file)"),
		profile: fs.String("profile", "", "policy profile: editor, headless or ci"),
		getenv:  getenv,
	}
}

// runner builds a gateway over every built-in tool for the workspace.
func (g *gateway) runner(defaultProfile string, approver tools.Approver, edits tools.EditProposer) (*tools.Runner, error) {
	root, err := filepath.Abs(*g.root)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("--root: %v", err)
	}
	profile := *g.profile
	if profile == "" {
		profile = defaultProfile
	}
	userFile := *g.policy
	if userFile == "" {
		userFile = userPolicyPath(g.getenv)
	}
	policy, err := tools.LoadPolicy(profile, userFile, projectPolicyPath(root))
	if err != nil {
		return nil, err
	}
	reg := tools.NewRegistry()
	reg.MustRegister(tools.Builtins()...)
	g.env = &tools.Env{Root: root, Workspace: tools.DiskWorkspace(root), Edits: edits, Approver: approver}
	policy.Apply(g.env)
	return tools.NewRunner(reg, g.env, &tools.RunnerOptions{Allowed: reg.Names(), Policy: policy, Approver: approver}), nil
}
