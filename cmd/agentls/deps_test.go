package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/agentls/agentls"

// depsRules is the import policy, in the spirit of go/build/deps_test.go:
// for each of our packages (by prefix), which of our packages it may
// import directly. Imports flow one way: cmd → lspserver → agent → tools →
// sandbox. prompts is a leaf that agent uses.
var depsRules = map[string][]string{
	"sandbox":   {},
	"prompts":   {},
	"tools":     {"sandbox"},
	"agent":     {"tools", "prompts", "agent"},
	"lspserver": {"agent", "tools", "sandbox", "prompts", "lspserver"},
	"cmd":       {"lspserver", "agent", "tools", "sandbox", "prompts"},
}

// thirdParty says which of our packages may import a restricted library.
var thirdParty = map[string][]string{
	"github.com/openai/openai-go": {"agent/openai"},
	"go.lsp.dev/":                 {"lspserver"},
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

// TestDeps_CatchesUpwardImports shows the rule can fail.
func TestDeps_CatchesUpwardImports(t *testing.T) {
	bad := []pkg{
		{ImportPath: module + "/sandbox", Imports: []string{module + "/tools"}},
		{ImportPath: module + "/tools", Imports: []string{module + "/agent", "go.lsp.dev/protocol"}},
		{ImportPath: module + "/agent", Imports: []string{"github.com/openai/openai-go/v3"}},
		{ImportPath: module + "/extra", Imports: nil},
	}
	if got := len(violations(bad)); got != 5 {
		t.Errorf("violations = %d, want 5: %q", got, violations(bad))
	}
}

func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		from := strings.TrimPrefix(p.ImportPath, module+"/")
		top := strings.SplitN(from, "/", 2)[0]
		allowed, ok := depsRules[top]
		if !ok {
			out = append(out, fmt.Sprintf("%s: top-level folder %q is not in the fixed layout", p.ImportPath, top))
			continue
		}
		for _, imp := range p.Imports {
			if rest, ours := strings.CutPrefix(imp, module+"/"); ours {
				to := strings.SplitN(rest, "/", 2)[0]
				if to != top && !contains(allowed, to) {
					out = append(out, fmt.Sprintf("%s imports %s: %s may not import %s", from, imp, top, to))
				}
				continue
			}
			for lib, owners := range thirdParty {
				if strings.HasPrefix(imp, lib) && !hasPrefixAny(from, owners) {
					out = append(out, fmt.Sprintf("%s imports %s: only %v may", from, imp, owners))
				}
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
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
	if !contains(deps, module+"/agent/script") {
		t.Errorf("the binary does not link agent/script, the demo's model: %d deps", len(deps))
	}
	for _, v := range testHelpersIn(deps) {
		t.Error(v)
	}
}

// TestDeps_CatchesTestHelpersInBinary shows the rule can fail.
func TestDeps_CatchesTestHelpersInBinary(t *testing.T) {
	got := testHelpersIn([]string{module + "/agent", module + "/agent/llmtest", module + "/lspserver/lsptest",
		module + "/sandbox/sandboxtest", module + "/agent/script", "net/http/httptest", "testing"})
	if len(got) != 3 {
		t.Errorf("violations = %q, want llmtest, lsptest and sandboxtest", got)
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
