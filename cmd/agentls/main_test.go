package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentls/agentls/agent/llmtest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentls": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

// TestScript runs the binary as a user would (E11): testdata/script/*.txtar.
// The fakemodel command serves a scripted OpenAI-compatible model on
// loopback and points OPENAI_BASE_URL and AGENTLS_MODEL at it.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/home/.config")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakemodel": fakeModel,
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
	ts.Setenv("OPENAI_BASE_URL", srv.URL)
	ts.Setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
	ts.Setenv("AGENTLS_MODEL", "scripted")
}
