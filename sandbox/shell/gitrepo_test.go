package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// TestGitConfigKeys_S8 checks the configuration reader against what git
// itself reads, especially spellings that could hide a key from a reader
// laxer than git: keys on the header's line, old-style subsections,
// continuation lines that swallow a header, comments, quotes, CRLF.
func TestGitConfigKeys_S8(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // key=value
		ok   bool
	}{
		{"[diff]\n\texternal = ./evil.sh\n", []string{"diff.external=./evil.sh"}, true},
		{"[diff] external = x", []string{"diff.external=x"}, true},
		{`[diff "ev"]textconv=x`, []string{"diff.ev.textconv=x"}, true},
		{"[Filter.FV]\n\tClean = x", []string{"filter.fv.clean=x"}, true},
		{"[filter \"Fv\"]\n  CLEAN = \"a b\" # c\n", []string{"filter.Fv.clean=a b"}, true},
		{"[core]\r\n\tx = 1\r\n[gpg]\r\n\tprogram = y\r\n", []string{"core.x=1", "gpg.program=y"}, true},
		{"\ufeff[diff]\nexternal=x", []string{"diff.external=x"}, true},
		// a continuation swallows the next line: git reads filter.fv.clean
		{"[filter \"fv\"]\n\tfoo = a \\\n[user]\n\tclean = evil\n", []string{"filter.fv.foo=a [user]", "filter.fv.clean=evil"}, true},
		// an escaped backslash at the end of a line is not a continuation
		{"[user]\n\tfoo = a \\\\\n[filter \"fv\"]\n\tclean = evil\n", []string{"user.foo=a \\", "filter.fv.clean=evil"}, true},
		{"[a]\n\tk = \"x;y#z\" ; c\n\tbool\n", []string{"a.k=x;y#z", "a.bool="}, true},
		{"[sub \"a\\\"b\"]\nk=v", []string{`sub.a"b.k=v`}, true},
		{"# c\n; c\n[a]\n", nil, true},
		{"k = v\n", nil, false},           // a key before any section
		{"[a]\nk = \"open\n", nil, false}, // a quote across a newline
		{"[a]\nk = \\q\n", nil, false},    // an unknown escape
		{"[a\nk=v", nil, false},           // a broken header
		{"[a \"b]\nk=v", nil, false},      // an unterminated subsection
		{"[a]\n1k = v\n", nil, false},     // a key must start with a letter
		{"[a]\nk v\n", nil, false},        // no '='
		{"[]\nk=v", nil, false},
	} {
		var got []string
		ok := gitConfigKeys(c.text, func(k, v string) { got = append(got, k+"="+v) })
		if ok != c.ok || c.ok && !slices.Equal(got, c.want) {
			t.Errorf("%q: keys %q, ok %v; want %q, %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

// repoFixture makes a repository in the shell fixture's workspace whose
// .git/config holds config.
func repoFixture(t *testing.T, config string) (*Policy, sandboxtest.Fixture) {
	t.Helper()
	p, fx := shellFixture(t)
	for _, d := range []string{"objects", "refs"} {
		sandboxtest.MustMkdir(t, filepath.Join(fx.Root, ".git", d))
	}
	sandboxtest.MustWrite(t, filepath.Join(fx.Root, ".git/HEAD"), "ref: refs/heads/main\n")
	sandboxtest.MustWrite(t, filepath.Join(fx.Root, ".git/config"), "[core]\n\tbare = false\n"+config)
	return p, fx
}

// TestShellPolicy_S8_RepoPrograms: read-only git commands, which run
// without asking, ask in a repository whose configuration names a
// program git would run for them (diff.external, textconv, filter
// drivers, gpg.program, includes), wherever the configuration sits (the
// repository, a linked worktree's common directory, a submodule) and
// however git is pointed at it (cd, -C, --git-dir, wrappers).
func TestShellPolicy_S8_RepoPrograms(t *testing.T) {
	readOnly := []string{"git diff", "git diff --stat", "git log -p", "git show HEAD", "git blame src/main.go",
		"git grep foo", "git status", "timeout 5 git diff", "bash -c 'git diff | head'", "cd src && git diff",
		"git -C src log -p", "go build ./...", "xargs git show < list"}
	for _, c := range []struct{ name, config string }{
		{"diff.external", "[diff]\n\texternal = ./evil.sh\n"},
		{"textconv", "[diff \"ev\"]\n\ttextconv = ./evil.sh\n"},
		{"diff driver command", "[diff \"ev\"]\n\tcommand = ./evil.sh\n"},
		{"filter clean", "[filter \"fv\"]\n\tclean = ./evil.sh\n"},
		{"filter smudge", "[filter \"fv\"]\n\tsmudge = ./evil.sh\n"},
		{"filter process", "[filter \"fv\"]\n\tprocess = ./evil.sh\n"},
		{"gpg program", "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = ./evil.sh\n"},
		{"include", "[include]\n\tpath = ../evil.cfg\n"},
		{"includeIf", "[includeIf \"gitdir:/\"]\n\tpath = ../evil.cfg\n"},
		{"old syntax", "[filter.fv]\n\tclean = ./evil.sh\n"},
		{"one line", "[diff] external = ./evil.sh\n"},
		{"hidden by continuation", "[filter \"fv\"]\n\tx = a \\\n[user]\n\tclean = ./evil.sh\n"},
		{"unparsable", "[diff\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := repoFixture(t, c.config)
			checkShell(t, p, sandbox.Ask, readOnly...)
			if v := p.Analyze("git diff"); v.Rule != "shell.git_repo_program" {
				t.Errorf("git diff: rule %s (%s)", v.Rule, v.Reason)
			}
		})
	}
	t.Run("clean", func(t *testing.T) {
		p, _ := repoFixture(t, "[remote \"origin\"]\n\turl = https://x\n[diff]\n\tcolorMoved = zebra\n")
		checkShell(t, p, sandbox.Allow, readOnly[:len(readOnly)-1]...)
	})
	t.Run("git-lfs", func(t *testing.T) {
		p, _ := repoFixture(t, "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n"+
			"\tprocess = git-lfs filter-process\n\trequired = true\n")
		checkShell(t, p, sandbox.Allow, "git diff", "git status")
		p2, _ := repoFixture(t, "[filter \"lfs\"]\n\tclean = \"git-lfs clean -- %f; ./evil.sh\"\n")
		checkShell(t, p2, sandbox.Ask, "git diff")
	})
	t.Run("nested repository", func(t *testing.T) {
		p, fx := repoFixture(t, "")
		sandboxtest.MustMkdir(t, filepath.Join(fx.Root, "vendor/x/.git"))
		sandboxtest.MustWrite(t, filepath.Join(fx.Root, "vendor/x/.git/config"), "[diff]\n\texternal = ./evil.sh\n")
		checkShell(t, p, sandbox.Ask, "cd vendor/x && git diff", "git -C vendor/x diff", "git --git-dir=vendor/x/.git log -p")
		checkShell(t, p, sandbox.Allow, "git diff", "cd src && git log -p")
	})
	t.Run("linked worktree", func(t *testing.T) {
		p, fx := repoFixture(t, "")
		common := filepath.Join(fx.Root, "main.git")
		sandboxtest.MustMkdir(t, filepath.Join(common, "worktrees/wt"))
		sandboxtest.MustWrite(t, filepath.Join(common, "config"), "[filter \"fv\"]\n\tclean = ./evil.sh\n")
		sandboxtest.MustWrite(t, filepath.Join(common, "worktrees/wt/commondir"), "../..\n")
		sandboxtest.MustWrite(t, filepath.Join(fx.Root, "wt/.git"), "gitdir: ../main.git/worktrees/wt\n")
		checkShell(t, p, sandbox.Ask, "cd wt && git status", "git -C wt diff")
	})
	t.Run("submodule", func(t *testing.T) {
		p, fx := repoFixture(t, "")
		sandboxtest.MustWrite(t, filepath.Join(fx.Root, ".git/modules/lib/config"), "[diff]\n\texternal = ./evil.sh\n")
		checkShell(t, p, sandbox.Ask, "git status", "git diff")
		p2, fx2 := repoFixture(t, "")
		sandboxtest.MustWrite(t, filepath.Join(fx2.Root, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n")
		sandboxtest.MustWrite(t, filepath.Join(fx2.Root, "lib/.git/config"), "[diff]\n\texternal = ./evil.sh\n")
		checkShell(t, p2, sandbox.Ask, "git status")
		_ = os.Remove(filepath.Join(fx2.Root, ".gitmodules"))
	})
	t.Run("go build without stamping", func(t *testing.T) {
		p, _ := repoFixture(t, "[filter \"fv\"]\n\tclean = ./evil.sh\n")
		checkShell(t, p, sandbox.Allow, "go build -buildvcs=false ./...", "go test ./...", "go vet ./...")
	})
	t.Run("reason names the key", func(t *testing.T) {
		p, _ := repoFixture(t, "[diff \"ev\"]\n\ttextconv = ./evil.sh\n")
		if v := p.Analyze("git log -p"); !strings.Contains(v.Reason, "diff.ev.textconv") {
			t.Errorf("reason %q does not name the key", v.Reason)
		}
	})
}
