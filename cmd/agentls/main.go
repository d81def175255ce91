// Command agentls is a coding agent that runs as a language server.
//
//	agentls [serve]             LSP on stdio (what editors start)
//	agentls plan|review|exec    headless runs in the current directory
//	agentls demo                an offline demo with a built-in scripted model
//	agentls version
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/sandbox/exec"
)

// version is set at link time with -ldflags "-X main.version=…";
// otherwise [buildVersion] reads it from the build information.
var version = ""

func main() {
	// The sandbox re-executes this binary as its helper; in that role it
	// never returns from here.
	exec.MaybeRunHelper()
	tuneGC(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
