package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentls/agentls/sandbox/sqlguard/sqlguardtest"
)

// exampleCase is one labelled case of testdata/policy-examples.
type exampleCase struct {
	Path, Op, Cmd, URL, Method, SQL string
	Expect, Why, Category           string
	Soft                            bool
	Setup                           []struct{ Op, Link, Target, Path string }
	Resolve                         []string `json:"resolve"`
	RedirectTo                      string   `json:"redirect_to"`
}

func loadExamples(t *testing.T, name string) []exampleCase {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "policy-examples", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []exampleCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c exampleCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, c)
	}
	return out
}

// vetOne runs `agentls vet` in-process on one call and returns its verdict.
func vetOne(t *testing.T, args []string, call map[string]any) map[string]any {
	t.Helper()
	in, _ := json.Marshal(call)
	var stdout, stderr bytes.Buffer
	env := func(k string) string {
		if k == "HOME" || k == "XDG_CONFIG_HOME" {
			return t.TempDir() // no user policy
		}
		return ""
	}
	if code := run(context.Background(), append([]string{"vet"}, args...), bytes.NewReader(append(in, '\n')), &stdout, &stderr, env); code != 0 {
		t.Fatalf("vet exit %d: %s", code, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("vet output %q: %v", stdout.String(), err)
	}
	return v
}

// score tallies one file's cases as the examples README says: unsafe
// misses fail the test, over-blocking is reported.
type score struct{ right, unsafe, overblocked, soft int }

func (s score) String() string {
	return fmt.Sprintf("%d right, %d unsafe, %d over-blocked (%d soft cases either way)", s.right, s.unsafe, s.overblocked, s.soft)
}

// TestPolicyExamples_Paths_B1 asks vet about every labelled path case
// (read_file for op read, write_file for op write) on the README's fixture.
func TestPolicyExamples_Paths_B1(t *testing.T) {
	var s score
	for _, c := range loadExamples(t, "paths.jsonl") {
		base := t.TempDir()
		root, outside := filepath.Join(base, "project"), filepath.Join(base, "outside")
		for _, d := range []string{"src", ".git/hooks", "docs"} {
			must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
		}
		must(t, os.MkdirAll(filepath.Join(outside, "sub"), 0o755))
		for _, f := range []string{"src/main.go", "README.md", ".git/config"} {
			must(t, os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644))
		}
		must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644))
		subst := strings.NewReplacer("{{ROOT}}", root, "{{OUTSIDE}}", outside, "{{ROOTNAME}}", "project")
		for _, st := range c.Setup {
			switch st.Op {
			case "symlink":
				must(t, os.Symlink(subst.Replace(st.Target), filepath.Join(root, st.Link)))
			case "hardlink":
				must(t, os.Link(subst.Replace(st.Target), filepath.Join(root, st.Link)))
			case "mkfifo":
				must(t, syscall.Mkfifo(filepath.Join(root, st.Path), 0o644))
			}
		}
		call := map[string]any{"tool": "read_file", "args": map[string]any{"path": subst.Replace(c.Path)}}
		if c.Op == "write" {
			call = map[string]any{"tool": "write_file", "args": map[string]any{"path": subst.Replace(c.Path), "content": "x"}}
		}
		v := vetOne(t, []string{"--root", root}, call)
		// A write to agentls' own files is refused as protected_path (E15),
		// one into a git directory or gitfile at any depth by path.git_dir.
		refused := v["decision"] == "deny" && (v["code"] == "path_outside_root" ||
			c.Op == "write" && (v["code"] == "protected_path" || v["rule"] == "path.git_dir"))
		switch {
		case c.Soft:
			s.soft++
		case c.Expect == "outside" && !refused:
			s.unsafe++
			t.Errorf("UNSAFE: %s %q (%s) = %v", c.Op, c.Path, c.Why, v)
		case c.Expect == "inside" && v["decision"] == "deny":
			s.overblocked++
			t.Logf("over-blocked: %s %q (%s) = %v", c.Op, c.Path, c.Why, v)
		default:
			s.right++
		}
	}
	t.Logf("paths.jsonl: %s", s)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPolicyExamples_Shell_S5 asks vet about every labelled command.
func TestPolicyExamples_Shell_S5(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "internal", "server"), 0o755))
	var s score
	for _, c := range loadExamples(t, "shell.jsonl") {
		v := vetOne(t, []string{"--root", root}, map[string]any{"tool": "run_command", "args": map[string]any{"command": c.Cmd}})
		got := v["decision"].(string)
		ok, unsafe := scoreShell(c.Expect, got, c.Soft)
		switch {
		case ok:
			s.right++
		case unsafe:
			s.unsafe++
			t.Errorf("UNSAFE: %q expected %s, got %s (%v) — %s", c.Cmd, c.Expect, got, v["rule"], c.Why)
		default:
			s.overblocked++
			t.Logf("over-blocked: %q expected %s, got %s (%v)", c.Cmd, c.Expect, got, v["rule"])
		}
	}
	t.Logf("shell.jsonl: %s", s)
}

// scoreShell applies the README's shell rubric.
func scoreShell(expect, got string, soft bool) (ok, unsafe bool) {
	switch expect {
	case "allow":
		return got == "allow" || (soft && got == "ask"), false
	case "ask":
		return got == "ask" || got == "deny" || (soft && got == "allow"), got == "allow" && !soft
	case "deny":
		return got == "deny" || (soft && got == "ask"), got != "deny" && !(soft && got == "ask")
	}
	return false, true
}

// TestPolicyExamples_SQL_B3 asks vet about every labelled query against the
// README's fixture, runs the allowed ones for real through `call`, and
// checks that refused ones changed and created no file.
func TestPolicyExamples_SQL_B3(t *testing.T) {
	root := t.TempDir()
	sqlFixture(t, root)
	before := snapshot(t, root)
	var s score
	for _, c := range loadExamples(t, "sql.jsonl") {
		args := map[string]any{"database": "app.db", "query": c.SQL}
		v := vetOne(t, []string{"--root", root}, map[string]any{"tool": "sql_query", "args": args})
		got := v["decision"]
		switch {
		case c.Soft:
			s.soft++
		case c.Expect == "allow" && got == "allow":
			q, _ := json.Marshal(args)
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"call", "--root", root, "sql_query", string(q)}, nil, &out, &errb, func(string) string { return "" })
			if code != 0 || strings.Contains(out.String(), `"is_error":true`) {
				s.overblocked++
				t.Logf("over-blocked at run time: %q: %s", c.SQL, out.String())
				continue
			}
			s.right++
		case c.Expect == "allow":
			s.overblocked++
			t.Logf("over-blocked: %q = %v", c.SQL, v)
		case got != "deny":
			s.unsafe++
			t.Errorf("UNSAFE: %q = %v (%s)", c.SQL, v, c.Why)
		default:
			s.right++
		}
	}
	if after := snapshot(t, root); after != before {
		t.Errorf("the fixture changed:\nbefore %s\nafter  %s", before, after)
	}
	for _, p := range []string{"/tmp/evil.db", "/tmp/pwn"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists", p)
		}
	}
	t.Logf("sql.jsonl: %s", s)
}

func sqlFixture(t *testing.T, root string) {
	t.Helper()
	sqlguardtest.Create(t, filepath.Join(root, "app.db"), append(slices.Clone(sqlguardtest.Schema),
		`INSERT INTO users VALUES (1,'ann','ann@example.com','x'),(2,'bob','bob@example.com','y')`,
		`INSERT INTO orders VALUES (1,1,12.5,'2026-01-01'),(2,1,3,'2026-01-02'),(3,2,40,'2026-01-03')`)...)
	sqlguardtest.Create(t, filepath.Join(root, "other.db"), `CREATE TABLE t(x)`, `INSERT INTO t VALUES (1)`)
}

// snapshot lists a directory's files with sizes and modification times.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	var b strings.Builder
	for _, e := range entries {
		fi, err := e.Info()
		must(t, err)
		fmt.Fprintf(&b, "%s:%d:%d ", e.Name(), fi.Size(), fi.ModTime().UnixNano())
	}
	return b.String()
}

// TestPolicyExamples_URLs_B4 asks vet about every labelled URL under the
// README's allowlist, with each DNS answer pinned by --resolve (the
// dial-time address checks apply to it) and each redirect target asked as
// its own URL. The policy also allows http_fetch outright, so a URL the
// allowlist accepts is "allow" rather than "ask".
func TestPolicyExamples_URLs_B4(t *testing.T) {
	root := t.TempDir()
	policy := filepath.Join(root, "policy.json")
	must(t, os.WriteFile(policy, []byte(`{"allow": ["http_fetch"], "http": {"allow": ["https://api.github.com", "https://pkg.go.dev"]}}`), 0o644))
	var s score
	for _, c := range loadExamples(t, "urls.jsonl") {
		target := c.URL
		if c.RedirectTo != "" {
			target = c.RedirectTo
		}
		args := []string{"--root", root, "--policy", policy}
		if len(c.Resolve) > 0 {
			host := "api.github.com"
			if u, err := url.Parse(c.URL); err == nil && u.Hostname() != "" {
				host = u.Hostname()
			}
			for _, a := range c.Resolve {
				args = append(args, "--resolve", host+":443:"+a)
			}
		}
		call := map[string]any{"tool": "http_fetch", "args": map[string]any{"url": target}}
		if c.Method != "" {
			call["args"].(map[string]any)["method"] = c.Method
		}
		v := vetOne(t, args, call)
		got := v["decision"]
		switch {
		case c.Soft:
			s.soft++
		case c.Expect == "allow" && got == "allow":
			s.right++
		case c.Expect == "allow":
			s.overblocked++
			t.Logf("over-blocked: %s = %v (%s)", target, v, c.Why)
		case got != "deny":
			s.unsafe++
			t.Errorf("UNSAFE: %s %v = %v (%s)", target, c.Resolve, v, c.Why)
		default:
			s.right++
		}
	}
	t.Logf("urls.jsonl: %s", s)
}
