package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vetRun runs `agentls vet ARGS` on stdin in a fresh HOME and returns its
// exit code, stdout and stderr.
func vetRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	var out, errb bytes.Buffer
	code := run(t.Context(), append([]string{"vet"}, args...), strings.NewReader(stdin), &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

const readCall = `{"tool":"read_file","args":{"path":"a.txt"}}` + "\n"

// TestVet_T18_MissingPolicyFile (issue 22 item 9): a --policy file that
// does not exist (or is a directory) is a bad command line, never the
// decisions of no policy.
func TestVet_T18_MissingPolicyFile(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"/nonexistent.json", root} {
		code, out, errs := vetRun(t, readCall, "--root", root, "--policy", p)
		if code != 2 || out != "" || !strings.Contains(errs, p) {
			t.Errorf("--policy %s: exit %d, stdout %q, stderr %q", p, code, out, errs)
		}
	}
	code, out, errs := vetRun(t, readCall, "--root", root, "--policy", writePolicy(t, `{"deny": ["read_file"]}`))
	if code != 0 || !strings.Contains(out, `"decision":"deny"`) {
		t.Errorf("an existing --policy: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestVet_T18_UnknownProfile: --profile takes editor, headless or ci; a
// typo is a bad command line (exit 2) in vet and in call.
func TestVet_T18_UnknownProfile(t *testing.T) {
	root := t.TempDir()
	code, out, errs := vetRun(t, readCall, "--root", root, "--profile", "bogus")
	if code != 2 || out != "" || !strings.Contains(errs, `unknown profile "bogus"`) {
		t.Errorf("vet --profile bogus: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, p := range []string{"editor", "headless", "ci"} {
		if code, _, errs := vetRun(t, readCall, "--root", root, "--profile", p); code != 0 {
			t.Errorf("vet --profile %s: exit %d: %s", p, code, errs)
		}
	}
	var out2, errb bytes.Buffer
	code = run(t.Context(), []string{"call", "--root", root, "--profile", "bogus", "read_file", `{"path":"a.txt"}`}, strings.NewReader(""), &out2, &errb,
		func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	if code != 2 || !strings.Contains(errb.String(), `unknown profile "bogus"`) {
		t.Errorf("call --profile bogus: exit %d, stderr %q", code, errb.String())
	}
}

// TestVet_T18_PolicyWarnings: the warnings a run prints about the policy
// (a rule that does not parse is skipped; a project file cannot allow)
// are printed by vet too, on stderr, and the other rules still apply.
func TestVet_T18_PolicyWarnings(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(root, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentls", "policy.json"), []byte(`{"allow": ["run_command(make *)"]}`), 0o644)
	policy := writePolicy(t, `{"deny": ["read_file(a.txt", "read_file(a.*)"]}`)
	code, out, errs := vetRun(t, readCall, "--root", root, "--policy", policy)
	if code != 0 || !strings.Contains(out, `"decision":"deny"`) {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{`rule "read_file(a.txt"`, "rule skipped", `allow rule "run_command(make *)" ignored`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

func writePolicy(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
