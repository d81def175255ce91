package sandbox

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// sl is a symlink setup op.
func sl(link, target string) setupOp { return setupOp{Op: "symlink", Link: link, Target: target} }

// TestResolvePath_T4_Adversarial covers inputs beyond the shared examples:
// symlink chains and loops, ".." through symlinked directories, trailing
// slashes, URIs, control characters, long paths and Unicode. want is the
// returned relative path; an empty want means refusal with rule.
func TestResolvePath_T4_Adversarial(t *testing.T) {
	long255 := strings.Repeat("x", 300)
	cases := []struct {
		name  string
		path  string
		setup []setupOp
		want  string
		rule  string
	}{
		{name: "empty", path: "", rule: RuleInvalidPath},
		{name: "dot", path: ".", want: "."},
		{name: "root absolute", path: "{{ROOT}}", want: "."},
		{name: "root absolute slash", path: "{{ROOT}}/", want: "."},
		{name: "trailing slash dir", path: "src/", want: "src"},
		{name: "trailing slash file", path: "src/main.go/", want: "src/main.go"},
		{name: "dot segments", path: "./src//./main.go", want: "src/main.go"},
		{name: "through a file", path: "README.md/x", want: "README.md/x"},
		{name: "dotdot out after in", path: "src/../../outside/secret.txt", rule: RuleOutsideRoot},
		{name: "dotdot to root", path: "src/..", want: "."},
		{name: "dotdot twice", path: "src/../..", rule: RuleOutsideRoot},
		{name: "absolute dotdot", path: "{{ROOT}}/..", rule: RuleOutsideRoot},
		{name: "prefix sibling", path: "{{ROOT}}-evil/x", rule: RuleOutsideRoot},
		{name: "double slash absolute", path: "//etc/passwd", rule: RuleOutsideRoot},
		{name: "T4 tilde home", path: "~/.ssh/id_rsa", rule: RuleHomePath},
		{name: "T4 tilde alone", path: "~", rule: RuleHomePath},
		{name: "T4 tilde user", path: "~root/.bashrc", rule: RuleHomePath},
		{name: "T4 tilde slash", path: "~/", rule: RuleHomePath},
		{name: "tilde inside a name", path: "src/~backup.go", want: "src/~backup.go"},
		{name: "tilde after dot slash", path: "./~/x", want: "~/x"},
		{name: "dollar literal", path: "$HOME/.ssh", want: "$HOME/.ssh"},
		{name: "percent literal", path: "%2e%2e/%2e%2e/etc", want: "%2e%2e/%2e%2e/etc"},
		{name: "git inside", path: ".git/hooks/pre-commit", want: ".git/hooks/pre-commit"},
		{name: "file uri", path: "file://{{ROOT}}/src/main.go", want: "src/main.go"},
		{name: "file uri localhost", path: "file://LocalHost{{ROOT}}/src/main.go", want: "src/main.go"},
		{name: "file uri percent", path: "file://{{ROOT}}/src/ma%69n.go", want: "src/main.go"},
		{name: "file uri upper scheme", path: "FILE:///etc/passwd", rule: RuleOutsideRoot},
		{name: "file uri remote host", path: "file://evil.example{{ROOT}}/src/main.go", rule: RuleOutsideRoot},
		{name: "file uri encoded dotdot", path: "file://{{ROOT}}/%2e%2e/outside/secret.txt", rule: RuleOutsideRoot},
		{name: "file uri encoded slash", path: "file://{{ROOT}}/src%2F..%2F..%2Foutside", rule: RuleOutsideRoot},
		{name: "file uri encoded NUL", path: "file://{{ROOT}}/a%00b", rule: RuleInvalidPath},
		{name: "file uri encoded newline", path: "file://{{ROOT}}/a%0Ab", rule: RuleInvalidPath},
		{name: "file uri opaque", path: "file:src/main.go", rule: RuleInvalidPath},
		{name: "file uri query", path: "file://{{ROOT}}/src/main.go?x=1", rule: RuleInvalidPath},
		{name: "file uri userinfo", path: "file://u@localhost{{ROOT}}/x", rule: RuleInvalidPath},
		{name: "other scheme", path: "https://example.com/x", rule: RuleInvalidPath},
		{name: "backslash", path: `src\main.go`, rule: RuleInvalidPath},
		{name: "drive", path: "C:/Windows", rule: RuleInvalidPath},
		{name: "newline", path: "src/a\nb", rule: RuleInvalidPath},
		{name: "carriage return", path: "src/a\rb", rule: RuleInvalidPath},
		{name: "escape", path: "\x1b[31mred", rule: RuleInvalidPath},
		{name: "C1 control", path: "a\u0085b", rule: RuleInvalidPath},
		{name: "DEL", path: "a\x7fb", rule: RuleInvalidPath},
		{name: "invalid UTF-8", path: "src/\xff.go", rule: RuleInvalidPath},
		{name: "too long", path: strings.Repeat("a/", MaxPathLen/2+1), rule: RuleInvalidPath},
		{name: "long component", path: "src/" + long255, rule: RuleInvalidPath},
		{name: "deep inside", path: strings.Repeat("d/", 1000) + "x", want: strings.Repeat("d/", 1000) + "x"},
		{name: "unicode", path: "docs/日本語.md", want: "docs/日本語.md"},
		{name: "unicode not normalised", path: "docs/ﬁle", want: "docs/ﬁle"},
		{name: "fullwidth dots literal", path: "．．/secret", want: "．．/secret"},
		{name: "symlink chain inside", path: "l1/main.go",
			setup: []setupOp{sl("l1", "l2"), sl("l2", "l3"), sl("l3", "src")}, want: "src/main.go"},
		{name: "symlink chain outside", path: "c1/secret.txt",
			setup: []setupOp{sl("c1", "c2"), sl("c2", "{{OUTSIDE}}")}, rule: RuleOutsideRoot},
		{name: "symlink loop", path: "a/x", setup: []setupOp{sl("a", "b"), sl("b", "a")}, rule: RuleInvalidPath},
		{name: "symlink self loop", path: "self", setup: []setupOp{sl("self", "self")}, rule: RuleInvalidPath},
		{name: "symlink growing loop", path: "g", setup: []setupOp{sl("g", "g/g")}, rule: RuleInvalidPath},
		{name: "symlink to dot repeated", path: "here/here/here/src/main.go",
			setup: []setupOp{sl("here", ".")}, want: "src/main.go"},
		{name: "T4 dotdot after symlinked dir", path: "deep/../README.md",
			setup: []setupOp{sl("deep", "docs/sub")}, rule: RuleSymlinkDotDot},
		{name: "T4 dotdot below symlinked dir", path: "deep/x/../../README.md",
			setup: []setupOp{sl("deep", "docs/sub")}, rule: RuleSymlinkDotDot},
		{name: "T4 dotdot after symlink absolute", path: "{{ROOT}}/deep/../README.md",
			setup: []setupOp{sl("deep", "docs/sub")}, rule: RuleSymlinkDotDot},
		{name: "T4 dotdot after outside symlink back in", path: "o/../{{ROOTNAME}}/src/main.go",
			setup: []setupOp{sl("o", "../outside")}, rule: RuleSymlinkDotDot},
		{name: "T4 dotdot after symlink file uri", path: "file://{{ROOT}}/deep/../README.md",
			setup: []setupOp{sl("deep", "docs/sub")}, rule: RuleSymlinkDotDot},
		{name: "dotdot after real dir", path: "docs/sub/../../README.md", want: "README.md"},
		{name: "dotdot after symlink undone first", path: "src/../deep",
			setup: []setupOp{sl("deep", "docs/sub")}, want: "docs/sub"},
		{name: "symlink target dotdot inside", path: "docs/parent/src/main.go",
			setup: []setupOp{sl("docs/parent", "..")}, want: "src/main.go"},
		{name: "symlink target dotdot via symlinked dir", path: "docs/sub/up2/x",
			setup: []setupOp{sl("docs/sub/up2", "../../..")}, rule: RuleOutsideRoot},
		{name: "T4 dotdot after symlinked dir at root", path: "s/../src",
			setup: []setupOp{sl("s", "docs/sub")}, rule: RuleSymlinkDotDot},
		{name: "symlink trailing slash", path: "up/", setup: []setupOp{sl("up", "..")}, rule: RuleOutsideRoot},
		{name: "symlink intermediate outside", path: "o/sub/new.txt",
			setup: []setupOp{sl("o", "../outside")}, rule: RuleOutsideRoot},
		{name: "absolute symlink inside", path: "abs/main.go",
			setup: []setupOp{sl("abs", "{{ROOT}}/src")}, want: "src/main.go"},
		{name: "absolute symlink to root parent", path: "p",
			setup: []setupOp{sl("p", "{{ROOT}}/..")}, rule: RuleOutsideRoot},
		{name: "dangling inside", path: "newin", setup: []setupOp{sl("newin", "src/new.go")}, want: "src/new.go"},
		{name: "dangling via missing dir", path: "dl",
			setup: []setupOp{sl("dl", "nodir/../../outside/x")}, rule: RuleOutsideRoot},
		{name: "dangling via missing dir then symlink", path: "dm",
			setup: []setupOp{sl("dm", "nodir/../up/outside/x"), sl("up", "..")}, rule: RuleOutsideRoot},
		{name: "symlink proc", path: "env", setup: []setupOp{sl("env", "/proc/self/environ")}, rule: RuleOutsideRoot},
		{name: "symlink to root abs", path: "r/src", setup: []setupOp{sl("r", "{{ROOT}}")}, want: "src"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := sandboxtest.NewFixture(t)
			apply(t, fx, c.setup...)
			got, err := ResolvePath(fx.Root, fx.Expand(c.path))
			if c.want != "" {
				if err != nil || got != c.want {
					t.Fatalf("ResolvePath(%q) = %q, %v; want %q", c.path, got, err, c.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ResolvePath(%q) = %q; want refusal %s", c.path, got, c.rule)
			}
			checkPolicyError(t, err, fx)
			pe, _ := errors.AsType[*PolicyError](err)
			if pe.Rule != c.rule {
				t.Errorf("rule = %q (%s); want %q", pe.Rule, pe.Reason, c.rule)
			}
			if pe.Subject != fx.Expand(c.path) {
				t.Errorf("subject = %q; want the path as given", pe.Subject)
			}
		})
	}
}

// TestResolvePath_RelativeRoot refuses a root that is not absolute.
func TestResolvePath_RelativeRoot(t *testing.T) {
	if _, err := ResolvePath("project", "src/main.go"); err == nil {
		t.Fatal("relative root accepted")
	}
}

// TestResolveWithin_OutsideRefused: ResolveWithin is exported for the shell
// analyser, which calls it only for paths lexically inside the root; any
// other caller's path outside the root (a sibling with the root as a name
// prefix, a parent, another tree) is refused, never resolved or a panic.
func TestResolveWithin_OutsideRefused(t *testing.T) {
	fx := sandboxtest.NewFixture(t)
	for _, abs := range []string{fx.Root + "-sibling/x", fx.Root[:len(fx.Root)-1], "/", "/etc/passwd", fx.Outside + "/secret.txt"} {
		rel, err := ResolveWithin(fx.Root, abs)
		if pe, ok := errors.AsType[*PolicyError](err); !ok || pe.Rule != RuleOutsideRoot {
			t.Errorf("ResolveWithin(%q) = %q, %v; want a %s refusal", abs, rel, err, RuleOutsideRoot)
		}
	}
	for abs, want := range map[string]string{fx.Root: ".", fx.Root + "/src/main.go": "src/main.go", fx.Root + "/new": "new"} {
		if rel, err := ResolveWithin(fx.Root, abs); rel != want || err != nil {
			t.Errorf("ResolveWithin(%q) = %q, %v; want %q", abs, rel, err, want)
		}
	}
	if rel, err := ResolveWithin("/", "/etc"); rel != "etc" || err != nil {
		t.Errorf(`ResolveWithin("/", "/etc") = %q, %v`, rel, err)
	}
}
