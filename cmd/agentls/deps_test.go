package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentls/agentls"

// depsRules is the import policy, in the spirit of go/build/deps_test.go:
// for each of our packages, which of our packages it may import directly.
// A package takes the rule of its longest key ("agent/openai" that of
// "agent"); an entry "x" allows the package x, "x/..." allows x and every
// package below it. Imports flow one way: cmd → lspserver → agent → tools
// → sandbox. prompts is a leaf that agent uses. Inside sandbox, each
// concern may use the root's shared primitives and nothing else of ours;
// the root knows none of them.
var depsRules = map[string][]string{
	"sandbox":             {},
	"sandbox/shell":       {"sandbox"},
	"sandbox/exec":        {"sandbox", "sandbox/exec/internal/child"},
	"sandbox/netguard":    {"sandbox"},
	"sandbox/sqlguard":    {"sandbox"},
	"sandbox/stage":       {"sandbox"}, // staged execution's change set: read, classify, merge (S9, S10)
	"sandbox/sandboxtest": {},
	"prompts":             {},
	"tools":               {"sandbox/..."},                            // the contract and the gateway: no tool by name
	"tools/builtin":       {"tools", "sandbox/...", "tools/htmltext"}, // built-in tools: clients of the contract, never imported by it
	"tools/htmltext":      {},
	"tools/hooks":         {"tools", "sandbox/exec"},                        // the user's hook commands
	"tools/mcp":           {"tools", "sandbox/exec", "tools/mcp/mcptest"},   // MCP servers over the go-sdk
	"tools/mcp/mcptest":   {},                                               // a test MCP server
	"tools/ext":           {"tools", "tools/hooks", "tools/mcp", "sandbox"}, // extension config and trust
	"tools/importcfg":     {"tools", "tools/hooks", "tools/mcp", "sandbox"}, // other agents' settings -> agentls's (issue 28)
	"agent":               {"tools/...", "prompts", "agent/..."},
	"lspserver":           {"agent/...", "tools/...", "sandbox/...", "prompts", "lspserver/..."},
	"lspserver/command":   {},        // the wire shapes: shared by server, clients and the generated protocol.ts
	"lspserver/transport": {},        // JSON-RPC framing and the connection: nothing of ours (gopls's jsonrpc2)
	"agent/script":        {},        // the demo's scripted model: a product package, no agent internals
	"agent/session":       {"agent"}, // sessions persist the agent's conversation; no tools, no LSP
	// One agent run for any front-end (LSP, ACP): no front-end, no protocol.
	"lspserver/agentrun": {"agent/...", "tools/...", "sandbox/...", "prompts"},
	// The ACP front-end (E20): the run, never the LSP server.
	"lspserver/acp":       {"lspserver/agentrun", "agent/...", "tools/...", "sandbox/...", "prompts"},
	"cmd":                 {"lspserver/...", "agent/...", "tools/...", "sandbox/...", "prompts"},
	"cmd/agentls-sandbox": {"sandbox/exec"}, // the small helper binary (issue 16); see TestDeps_SandboxHelperIsSmall

	// What sandbox/exec runs in the zygote and in each command's init
	// (issue 23): it cannot reach the server's state, or anything of ours.
	"sandbox/exec/internal/child": {},
}

// owners are packages of ours that one importer alone may import (test
// files aside): a front-end belongs to its subcommand.
var owners = map[string][]string{
	"lspserver/acp": {"cmd/agentls"},
}

// testOnly are test-helper packages: only _test.go files (whose imports
// go list reports apart) may import them.
var testOnly = []string{"sandbox/sandboxtest", "sandbox/sqlguard/sqlguardtest", "tools/mcp/mcptest"}

// thirdParty says which of our packages (and those below them) may import
// a restricted library, by import path prefix.
var thirdParty = map[string][]string{
	"github.com/openai/openai-go":            {"agent/openai"},
	"go.lsp.dev/":                            {"lspserver"},
	"modernc.org/":                           {"sandbox/sqlguard"}, // the SQLite driver and its C runtime
	"mvdan.cc/sh/":                           {"sandbox/shell"},
	"golang.org/x/net/html":                  {"tools/htmltext"},
	"github.com/modelcontextprotocol/go-sdk": {"tools/mcp"},       // and its mcptest
	"github.com/fsnotify/fsnotify":           {"lspserver/watch"}, // file watching (E10)
	"github.com/coder/acp-go-sdk":            {"lspserver/acp"},   // the Agent Client Protocol (E20)
	"github.com/pelletier/go-toml":           {"tools/importcfg"}, // Codex's config.toml (issue 28)
}

// closedThirdParty lists, for packages whose libraries are a closed list,
// the ones each may import (by prefix; longest key wins, as in
// depsRules). The sandbox imports only the standard library and what its
// concerns need: the shell parser, the SQLite driver, system calls.
var closedThirdParty = map[string][]string{
	"sandbox":             {"golang.org/x/sys/"}, // O_TMPFILE and linkat for atomic writes
	"sandbox/shell":       {"mvdan.cc/sh/"},
	"sandbox/exec":        {"golang.org/x/sys/"},
	"sandbox/stage":       {"golang.org/x/sys/"},
	"sandbox/sqlguard":    {"modernc.org/"},
	"tools/htmltext":      {"golang.org/x/net/html"},
	"lspserver/command":   {"go.lsp.dev/protocol"},
	"lspserver/transport": {"go.lsp.dev/"},
	"lspserver/agentrun":  {},
	"lspserver/acp":       {"github.com/coder/acp-go-sdk", "github.com/aymanbagabas/go-udiff"},
	"agent/script":        {},
	"agent/session":       {},
	"tools/hooks":         {},
	"tools/ext":           {},
	"tools/importcfg":     {"github.com/pelletier/go-toml"},
	"cmd/agentls-sandbox": {},

	"sandbox/exec/internal/child": {"golang.org/x/sys/"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

// TestDeps enforces the import direction from `go list` data; a new arrow
// against it fails here before the graph erodes.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkg
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 6 {
		t.Fatalf("go list saw only %d packages", len(pkgs))
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestDeps_CatchesUpwardImports shows that each rule can fail, and that
// the allowed arrows pass.
func TestDeps_CatchesUpwardImports(t *testing.T) {
	for _, c := range []struct {
		name string
		pkg  pkg
		want int
	}{
		{"sandbox imports tools", pkg{module + "/sandbox", []string{module + "/tools"}}, 1},
		{"tools imports agent and LSP", pkg{module + "/tools", []string{module + "/agent", "go.lsp.dev/protocol"}}, 2},
		{"agent imports openai", pkg{module + "/agent", []string{"github.com/openai/openai-go/v3"}}, 1},
		{"new top-level folder", pkg{module + "/extra", nil}, 1},
		{"sandbox root imports a concern", pkg{module + "/sandbox", []string{module + "/sandbox/shell"}}, 1},
		{"concern imports a sibling", pkg{module + "/sandbox/shell", []string{module + "/sandbox/exec"}}, 1},
		{"new concern imports a sibling", pkg{module + "/sandbox/newguard", []string{module + "/sandbox/netguard"}}, 1},
		{"netguard imports SQLite", pkg{module + "/sandbox/netguard", []string{"modernc.org/sqlite"}}, 2},
		{"tools imports SQLite", pkg{module + "/tools", []string{"modernc.org/sqlite"}}, 1},
		{"tools imports the shell parser", pkg{module + "/tools", []string{"mvdan.cc/sh/v3/syntax"}}, 1},
		{"tools imports the HTML parser", pkg{module + "/tools", []string{"golang.org/x/net/html"}}, 1},
		{"tools imports fsnotify", pkg{module + "/tools", []string{"github.com/fsnotify/fsnotify"}}, 1},
		{"lspserver root imports fsnotify", pkg{module + "/lspserver", []string{"github.com/fsnotify/fsnotify"}}, 1},
		{"exec imports another library", pkg{module + "/sandbox/exec", []string{"github.com/google/go-cmp/cmp"}}, 1},
		{"htmltext imports sandbox", pkg{module + "/tools/htmltext", []string{module + "/sandbox"}}, 1},
		{"session imports tools", pkg{module + "/agent/session", []string{module + "/tools"}}, 1},
		{"session imports LSP", pkg{module + "/agent/session", []string{"go.lsp.dev/protocol"}}, 2},
		{"allowed: session", pkg{module + "/agent/session", []string{module + "/agent", "hash/crc32"}}, 0},
		{"tools imports a test helper", pkg{module + "/tools", []string{module + "/sandbox/sandboxtest"}}, 1},
		{"tools imports the MCP SDK", pkg{module + "/tools", []string{"github.com/modelcontextprotocol/go-sdk/mcp"}}, 1},
		{"ext imports the MCP SDK", pkg{module + "/tools/ext", []string{"github.com/modelcontextprotocol/go-sdk/mcp"}}, 2},
		{"hooks imports agent", pkg{module + "/tools/hooks", []string{module + "/agent"}}, 1},
		{"ext imports the test server", pkg{module + "/tools/ext", []string{module + "/tools/mcp/mcptest"}}, 1},
		{"allowed: mcp", pkg{module + "/tools/mcp", []string{module + "/tools", "github.com/modelcontextprotocol/go-sdk/mcp"}}, 0},
		{"allowed: sqlguard", pkg{module + "/sandbox/sqlguard", []string{module + "/sandbox", "modernc.org/sqlite", "database/sql"}}, 0},
		{"allowed: shell", pkg{module + "/sandbox/shell", []string{module + "/sandbox", "mvdan.cc/sh/v3/syntax"}}, 0},
		{"allowed: exec", pkg{module + "/sandbox/exec", []string{"golang.org/x/sys/unix", "os/exec"}}, 0},
		{"allowed: tools", pkg{module + "/tools", []string{module + "/sandbox/exec", "golang.org/x/text/language"}}, 0},
		{"tools imports the built-in tools", pkg{module + "/tools", []string{module + "/tools/builtin"}}, 1},
		{"tools imports its sub-packages", pkg{module + "/tools", []string{module + "/tools/mcp", module + "/tools/hooks", module + "/tools/htmltext"}}, 3},
		{"built-in tools import the agent", pkg{module + "/tools/builtin", []string{module + "/agent"}}, 1},
		{"allowed: builtin", pkg{module + "/tools/builtin", []string{module + "/tools", module + "/sandbox/sqlguard", module + "/tools/htmltext"}}, 0},
		{"allowed: htmltext", pkg{module + "/tools/htmltext", []string{"golang.org/x/net/html/atom"}}, 0},
		{"helper imports tools", pkg{module + "/cmd/agentls-sandbox", []string{module + "/tools"}}, 1},
		{"helper imports x/sys itself", pkg{module + "/cmd/agentls-sandbox", []string{"golang.org/x/sys/unix"}}, 1},
		{"allowed: helper", pkg{module + "/cmd/agentls-sandbox", []string{module + "/sandbox/exec", "os"}}, 0},
		{"allowed: lspserver", pkg{module + "/lspserver/headless", []string{module + "/lspserver", module + "/sandbox/exec", "go.lsp.dev/uri"}}, 0},
		{"transport imports the server", pkg{module + "/lspserver/transport", []string{module + "/lspserver"}}, 1},
		{"transport imports the wire shapes", pkg{module + "/lspserver/transport", []string{module + "/lspserver/command"}}, 1},
		{"transport imports another library", pkg{module + "/lspserver/transport", []string{"github.com/google/go-cmp/cmp"}}, 1},
		{"allowed: transport", pkg{module + "/lspserver/transport", []string{"go.lsp.dev/jsonrpc2", "go.lsp.dev/protocol", "bufio"}}, 0},
		{"the run imports the LSP server", pkg{module + "/lspserver/agentrun", []string{module + "/lspserver"}}, 1},
		{"the run imports the LSP wire shapes", pkg{module + "/lspserver/agentrun", []string{module + "/lspserver/command"}}, 1},
		{"the run imports LSP types", pkg{module + "/lspserver/agentrun", []string{"go.lsp.dev/protocol"}}, 1},
		{"allowed: agentrun", pkg{module + "/lspserver/agentrun", []string{module + "/agent/session", module + "/tools/builtin", "log/slog"}}, 0},
		{"E20: acp imports the LSP server", pkg{module + "/lspserver/acp", []string{module + "/lspserver", "go.lsp.dev/protocol"}}, 2},
		{"E20: the LSP server imports acp", pkg{module + "/lspserver", []string{module + "/lspserver/acp"}}, 1},
		{"E20: headless imports acp", pkg{module + "/lspserver/headless", []string{module + "/lspserver/acp"}}, 1},
		{"E20: the LSP server imports the ACP SDK", pkg{module + "/lspserver", []string{"github.com/coder/acp-go-sdk"}}, 1},
		{"E20: acp imports another library", pkg{module + "/lspserver/acp", []string{"github.com/google/go-cmp/cmp"}}, 1},
		{"allowed: acp", pkg{module + "/lspserver/acp", []string{module + "/lspserver/agentrun", module + "/tools/builtin", "github.com/coder/acp-go-sdk"}}, 0},
		{"allowed: cmd imports acp", pkg{module + "/cmd/agentls", []string{module + "/lspserver/acp"}}, 0},
	} {
		if got := violations([]pkg{c.pkg}); len(got) != c.want {
			t.Errorf("%s: %d violations, want %d: %q", c.name, len(got), c.want, got)
		}
	}
}

func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		from := strings.TrimPrefix(p.ImportPath, module+"/")
		allowed, ok := ruleFor(depsRules, from)
		if !ok {
			top, _, _ := strings.Cut(from, "/")
			out = append(out, fmt.Sprintf("%s: top-level folder %q is not in the fixed layout", p.ImportPath, top))
			continue
		}
		libs, closed := ruleFor(closedThirdParty, from)
		for _, imp := range p.Imports {
			if to, ours := strings.CutPrefix(imp, module+"/"); ours {
				switch {
				case slices.Contains(testOnly, to):
					out = append(out, fmt.Sprintf("%s imports %s: a test helper, for _test.go files only", from, imp))
				case !matchAny(to, allowed):
					out = append(out, fmt.Sprintf("%s imports %s: not in its allowed imports %v", from, imp, allowed))
				case owners[to] != nil && !slices.Contains(owners[to], from):
					out = append(out, fmt.Sprintf("%s imports %s: only %v may", from, imp, owners[to]))
				}
				continue
			}
			for lib, owners := range thirdParty {
				if strings.HasPrefix(imp, lib) && !hasPrefixAny(from, owners) {
					out = append(out, fmt.Sprintf("%s imports %s: only %v may", from, imp, owners))
				}
			}
			if closed && !isStd(imp) && !startsWithAny(imp, libs) {
				out = append(out, fmt.Sprintf("%s imports %s: its libraries are only %v", from, imp, libs))
			}
		}
	}
	return out
}

// ruleFor returns the rule of the longest key of rules that is pkg or a
// parent of it.
func ruleFor(rules map[string][]string, pkg string) ([]string, bool) {
	for p := pkg; ; {
		if r, ok := rules[p]; ok {
			return r, true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return nil, false
		}
		p = p[:i]
	}
}

// matchAny reports whether pkg matches one of patterns: "x" matches x,
// "x/..." matches x and the packages below it.
func matchAny(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if base, tree := strings.CutSuffix(p, "/..."); tree && (pkg == base || strings.HasPrefix(pkg, base+"/")) || pkg == p {
			return true
		}
	}
	return false
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}

// TestDeps_NoTestHelpersInBinary: the test-helper packages (llmtest,
// lsptest, any <pkg>test) are imported only from _test.go files and e2e
// tests, never linked into agentls; the demo's scripted model is
// agent/script, a package of the product.
func TestDeps_NoTestHelpersInBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/agentls").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/agent/script") {
		t.Errorf("the binary does not link agent/script, the demo's model: %d deps", len(deps))
	}
	for _, v := range testHelpersIn(deps) {
		t.Error(v)
	}
	for _, v := range methodKeepersIn(deps) {
		t.Error(v)
	}
}

// methodKeepers are packages that can call any exported method by name:
// linking one makes the linker keep every exported method of every
// reachable type (with openai-go's, 30 MB of binary and about 6 MiB of
// RSS in every agentls process, issue 16).
var methodKeepers = []string{"text/template", "html/template"}

// methodKeepersIn returns a violation for each method keeper among deps.
func methodKeepersIn(deps []string) []string {
	var out []string
	for _, d := range deps {
		if slices.Contains(methodKeepers, d) {
			out = append(out, fmt.Sprintf("issue 16: cmd/agentls links %s, which keeps every exported method in the binary", d))
		}
	}
	return out
}

// TestDeps_CatchesTestHelpersInBinary shows the rule can fail.
func TestDeps_CatchesTestHelpersInBinary(t *testing.T) {
	got := testHelpersIn([]string{module + "/agent", module + "/agent/llmtest", module + "/lspserver/lsptest",
		module + "/sandbox/sandboxtest", module + "/agent/script", "net/http/httptest", "testing"})
	if len(got) != 3 {
		t.Errorf("violations = %q, want llmtest, lsptest and sandboxtest", got)
	}
	if got := methodKeepersIn([]string{"text/template/parse", "text/template", "fmt"}); len(got) != 1 {
		t.Errorf("method keepers = %q, want text/template", got)
	}
}

// testHelpersIn returns a violation for each of our packages named
// <pkg>test among deps.
func testHelpersIn(deps []string) []string {
	var out []string
	for _, d := range deps {
		rest, ours := strings.CutPrefix(d, module+"/")
		if !ours {
			continue
		}
		if name := rest[strings.LastIndex(rest, "/")+1:]; strings.HasSuffix(name, "test") {
			out = append(out, fmt.Sprintf("cmd/agentls links the test helper %s", rest))
		}
	}
	return out
}

func startsWithAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isStd reports whether imp is in the standard library: its first path
// element has no dot.
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// helperDeps are all that the sandbox helper binary may link (issue 16):
// each command starts it, so it stays a few MiB with no package inits of
// the server. Ours by package, libraries by prefix; the standard library
// is always allowed.
var helperDeps = struct{ ours, libs []string }{
	ours: []string{"cmd/agentls-sandbox", "sandbox/exec", "sandbox/exec/internal/child", "sandbox"},
	libs: []string{"golang.org/x/sys/"},
}

// TestDeps_SandboxHelperIsSmall checks every package that
// cmd/agentls-sandbox links, not only its direct imports.
func TestDeps_SandboxHelperIsSmall(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/agentls-sandbox").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/sandbox/exec") {
		t.Fatalf("the helper does not link sandbox/exec: %v", deps)
	}
	for _, v := range helperViolations(deps) {
		t.Error(v)
	}
}

// TestDeps_CatchesHeavyHelper shows that the helper's rule can fail.
func TestDeps_CatchesHeavyHelper(t *testing.T) {
	got := helperViolations([]string{module + "/sandbox/exec", module + "/sandbox/shell", "mvdan.cc/sh/v3/syntax",
		"github.com/google/jsonschema-go/jsonschema", "golang.org/x/sys/unix", "encoding/json", "net"})
	if len(got) != 4 {
		t.Errorf("violations = %q, want sandbox/shell, mvdan.cc/sh, jsonschema-go and net", got)
	}
}

func helperViolations(deps []string) []string {
	var out []string
	for _, d := range deps {
		if rest, ours := strings.CutPrefix(d, module+"/"); ours {
			if !slices.Contains(helperDeps.ours, rest) {
				out = append(out, fmt.Sprintf("cmd/agentls-sandbox links %s: only %v of ours", rest, helperDeps.ours))
			}
			continue
		}
		if !isStd(d) && !startsWithAny(d, helperDeps.libs) {
			out = append(out, fmt.Sprintf("cmd/agentls-sandbox links %s: only the standard library and %v", d, helperDeps.libs))
		}
		if d == "net" || d == "os/user" || d == "runtime/cgo" {
			// Either links the C library (cgo resolver, getpwnam): a
			// dynamic helper pays the dynamic loader at every command.
			out = append(out, fmt.Sprintf("issue 16: cmd/agentls-sandbox links %s, which makes it a dynamic executable", d))
		}
	}
	return out
}
