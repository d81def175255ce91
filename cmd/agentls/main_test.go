package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	exec.MaybeRunHelper()
	// With MCPTEST_SERVER=1 the binary is a test MCP server (scripts
	// configure "command": "agentls" with that env).
	mcptest.MaybeServe()
	testscript.Main(cleanRun{m}, map[string]func(){
		"agentls": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

// cleanRun runs the tests, then removes the binary they shared.
type cleanRun struct{ m *testing.M }

func (c cleanRun) Run() int {
	defer removeShared()
	widenParallel()
	quickRaceExit()
	return c.m.Run()
}

// raceNoExitSleep makes a program built with -race exit at once: by
// default it sleeps a second first (GORACE's atexit_sleep_ms), and the
// tests start agentls, built with -race, hundreds of times.
const raceNoExitSleep = "atexit_sleep_ms=0"

// quickRaceExit passes raceNoExitSleep to the programs the tests start,
// unless GORACE is set already.
func quickRaceExit() {
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", raceNoExitSleep)
	}
}

// suiteParallel is how many parallel tests run at once here unless
// -parallel is given. go test's default is GOMAXPROCS, but these tests
// spend most of their time waiting on child processes (agentls, editors,
// a scripted model): at 2 on a 2-core machine TestScript used a third
// of the CPU and took 117 s, at 4 it took 68 s (issue 25, the suite's
// time).
const suiteParallel = 4

// widenParallel raises -test.parallel to suiteParallel when the command
// line did not set it.
func widenParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(suiteParallel)); err != nil {
			panic(err)
		}
	}
}

// TestScript runs the binary as a user would (E11): testdata/script/*.txtar.
// The fakemodel command serves a scripted OpenAI-compatible model on
// loopback and points OPENAI_BASE_URL and AGENTLS_MODEL at it.
func TestScript(t *testing.T) {
	agentls, helper := installHelper(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("AGENTLS_BIN", agentls)
			env.Setenv("AGENTLS_HELPER_BIN", helper)
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/home/.config")
			env.Setenv("GORACE", os.Getenv("GORACE"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakemodel":   fakeModel,
			"frame":       frameLSP,
			"checkframes": checkFrames,
			"modelreq":    scriptModelRequest,
			"damage":      damageSession,
			"sessionid":   sessionID,
		},
	})
}

func fakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakemodel SCRIPT.jsonl")
	}
	script, err := llmtest.ParseScript([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	srv := llmtest.NewServer(script)
	ts.Defer(srv.Close)
	models.Store(ts, srv)
	ts.Setenv("OPENAI_BASE_URL", srv.URL)
	ts.Setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
	ts.Setenv("AGENTLS_MODEL", "scripted")
}

// frameLSP writes each JSON line of IN as an LSP message with a
// Content-Length header to OUT, for use as a server's stdin.
func frameLSP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: frame IN OUT")
	}
	var b strings.Builder
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		line = strings.ReplaceAll(line, "$WORK", ts.Getenv("WORK"))
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(line), line)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// checkFrames asserts that a file holds nothing but well-formed LSP frames
// of JSON-RPC messages (E1: nothing but protocol bytes on stdout), and
// prints each message on its own line to stdout for further matching.
func checkFrames(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: checkframes FILE")
	}
	r := bufio.NewReader(strings.NewReader(ts.ReadFile(args[0])))
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			break
		}
		length, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "Content-Length: ")
		if !ok {
			ts.Fatalf("frame %d: not a Content-Length header: %q", n, line)
		}
		size, err := strconv.Atoi(length)
		ts.Check(err)
		if blank, _ := r.ReadString('\n'); blank != "\r\n" {
			ts.Fatalf("frame %d: header not followed by a blank line: %q", n, blank)
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(r, body); err != nil {
			ts.Fatalf("frame %d: short body: %v", n, err)
		}
		var msg map[string]any
		if err := json.Unmarshal(body, &msg); err != nil || msg["jsonrpc"] != "2.0" {
			ts.Fatalf("frame %d: not a JSON-RPC message: %s", n, body)
		}
		fmt.Fprintf(ts.Stdout(), "%s\n", body)
		n++
	}
	if n == 0 {
		ts.Fatalf("no frames")
	}
}
