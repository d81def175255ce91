package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox"
)

// TestProgramFlags_T19_Options: options of read-only commands that name
// a program the command runs ask, however getopt lets them be spelled
// (issue 22 item 7); before, rg --hostname-bin, sdiff and diff3
// --diff-program, git grep --open=… and every abbreviation were allowed.
func TestProgramFlags_T19_Options(t *testing.T) {
	p, _ := shellFixture(t)
	checkShell(t, p, sandbox.Ask,
		"rg --pre ./x foo", "rg --pre=./x foo", "rg --pre-glob '*.pdf' --pre ./x foo", "rg --hostname-bin ./x foo",
		"rg --hostname-bin=./x --hyperlink-format=default foo", "sort --compress-program=./x f", "sort --compress=./x f",
		"sort -S 1 --comp ./x f", "sdiff --diff-program=./x a b", "sdiff --diff=./x a b", "diff3 --diff-program=./x a b c",
		"diff3 --dif=./x a b c", "tar --use-compress-program=./x -tf a.tar", "tar --use-comp=./x -tf a.tar",
		"tar -I ./x -tf a.tar", "tar -tf a.tar --info=./x",
		"tar -tf h:a.tar --rsh=./x", "tar -tf h:a.tar --rmt-command=./x", "sdiff -o out a b", "git grep -O./x foo",
		"git grep --open=./x foo", "git grep --open-files-in-pager=./x foo", "git --exec-path=./x status",
		"find . -exec ./x {} ;", "xargs ./x < f", "rsync -e ./x a h:b", "LESSOPEN='|./x %s' less f",
		"LESSOPEN='||./x %s' less f", "sdiff --d=./x a b", "sort --c=./x f")
	checkShell(t, p, sandbox.Deny, "tar -tf a.tar --checkpoint=1 --checkpoint-act=exec=./x", "man -P ./x ls")
	checkShell(t, p, sandbox.Allow, "rg foo", "rg -z --no-config foo", "rg --hyperlink-format=default foo",
		"sort -S 1 -T . README.md", "sort --check README.md", "sdiff README.md README.md", "diff3 a b c", "tar -tvf a.tar",
		"tar --totals -tf a.tar", "tar -tf a.tar --checkpoint=10", "git grep -n foo", "git --exec-path", "less README.md",
		"sort -d README.md", "sdiff -d README.md README.md")
}

// TestProgramFlags_T19_Env: variables that name a program a build or
// tool runs ask like GOFLAGS, on the command line, through env or
// export; compiler flags ask unless they only tune the compilation.
func TestProgramFlags_T19_Env(t *testing.T) {
	p, _ := shellFixture(t)
	var asks []string
	for _, v := range []string{"RUSTC_WRAPPER=./x", "RUSTC=./x", "CARGO_BUILD_RUSTC_WRAPPER=./x",
		"CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=./x", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=./x",
		"CC=./x", "CXX=./x", "AR=./x", "LD=./x", "RM=./x", "RANLIB=./x", "PKG_CONFIG=./x", "GCCGO=./x",
		"GOROOT=./x", "CC_FOR_TARGET=./x", "CXX_FOR_linux_amd64=./x", "GOFLAGS=-toolexec=./x", "CFLAGS='-wrapper ./x'",
		"LDFLAGS=-fuse-ld=./x", "CFLAGS=-B./x", "CXXFLAGS=-fplugin=./x.so", "LDFLAGS=-Wl,-plugin,./x.so"} {
		for _, tool := range []string{"make", "cargo build", "go build ./..."} {
			asks = append(asks, v+" "+tool, "env "+v+" "+tool, "export "+v+"; "+tool)
		}
	}
	checkShell(t, p, sandbox.Ask, asks...)
	checkShell(t, p, sandbox.Ask, "make AR=./x", "make 'CFLAGS=-wrapper ./x'", "TAR_OPTIONS=-I./x tar -tf a.tar",
		"RIPGREP_CONFIG_PATH=./rc rg foo", "GCONV_PATH=. iconv -f X README.md", "go build -gccgoflags='-wrapper ./x' ./...")
	checkShell(t, p, sandbox.Allow, "CFLAGS='-O2 -g -Wall -DNDEBUG -Iinclude' make", "make 'CFLAGS=-O2 -g' all",
		"LDFLAGS='-Llib -lm -Wl,--as-needed' make", "CFLAGS='-march=native -std=c11 -fPIC -pthread' make",
		"go build -compiler gc ./...")
}

// toolScript is the program the real-tools test names: it creates
// PWNED and passes its input on, as a compressor or filter would.
const toolScript = "#!/bin/sh\ntouch PWNED\nexec cat\n"

// TestProgramFlags_T19_RealTools runs the spellings the analysis allows
// with the real tools (sort, sdiff, diff3, tar, make; each where it is
// installed): none may run the named program. The unabbreviated option
// of each tool is run regardless, to show that the tool runs it.
func TestProgramFlags_T19_RealTools(t *testing.T) {
	bash := lookBash(t)
	lines := map[string][]string{
		"sort":  {"sort -S 1 --compress-program=./x big", "sort -S 1 --compress=./x big", "sort -S 1 --comp ./x big"},
		"sdiff": {"sdiff --diff-program=./x a b", "sdiff --diff=./x a b", "sdiff --d=./x a b"},
		"diff3": {"diff3 --diff-program=./x a b a", "diff3 --diff=./x a b a"},
		"tar": {"tar --use-compress-program=./x -tf t.tar", "tar --use-comp=./x -tf t.tar", "tar -I ./x -tf t.tar",
			"tar -tf t.tar -I./x", "TAR_OPTIONS=-I./x tar -tf t.tar", "tar -tf t.tar --checkpoint=1 --checkpoint-act=exec=./x"},
		"make": {"AR=./x make ar", "make AR=./x ar", "RM=./x make rm", "env AR=./x make ar", "export AR=./x; make ar"},
	}
	ran := 0
	for tool, cmds := range lines {
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s is not installed here: its lines are only analysed", tool)
			checkShell(t, &Policy{Root: t.TempDir()}, sandbox.Ask, cmds...)
			continue
		}
		for i, cmd := range cmds {
			dir := toolWorkspace(t, bash)
			if (&Policy{Root: dir, Home: dir + "/home"}).Analyze(cmd).Decision == sandbox.Allow {
				if runTool(bash, dir, cmd) {
					t.Errorf("%q is allowed, but %s ran the program it names", cmd, tool)
				}
			} else if i == 0 && !runTool(bash, dir, cmd) {
				t.Errorf("%q did not run its program: the line tests nothing", cmd)
			}
			ran++
		}
	}
	if ran == 0 {
		t.Fatal("no tool of the test is installed")
	}
}

// toolWorkspace makes a workspace with the files the lines use.
func toolWorkspace(t *testing.T, bash string) string {
	dir := bashWorkspace(t, "")
	var big strings.Builder
	for i := 20000; i > 0; i-- {
		big.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	files := map[string]string{"x": toolScript, "big": big.String(), "a": "1\n2\n", "b": "1\n3\n",
		"Makefile": "ar:\n\t$(AR) --version\nrm:\n\t$(RM) nothing\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runIn(bash, dir, "tar -cf t.tar a", []string{"PATH=/usr/bin:/bin"}, 5*time.Second)
	return dir
}

// runTool runs cmd in dir and reports whether it ran ./x.
func runTool(bash, dir, cmd string) bool {
	marker := filepath.Join(dir, "PWNED")
	runIn(bash, dir, cmd+" </dev/null >/dev/null 2>&1", []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}, 10*time.Second)
	_, err := os.Stat(marker)
	os.Remove(marker)
	return err == nil
}
