package headless

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/script"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/sandbox"
)

//go:embed demo.txtar
var demoArchive []byte

// NewModelFunc builds a model client for an OpenAI-compatible endpoint.
type NewModelFunc func(baseURL, model string) (agent.Model, error)

// Demo copies a small project to a temporary directory and runs plan,
// review and execute on it against a built-in scripted model, printing the
// diff, the approval, a call refused by validation, and the final file. It
// needs no network and no API key.
func Demo(ctx context.Context, stdout, stderr io.Writer, newModel NewModelFunc) error {
	ar := txtar.Parse(demoArchive)
	dir, err := os.MkdirTemp("", "agentls-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	scripts := map[agent.Mode]script.Script{}
	for _, f := range ar.Files {
		switch {
		case strings.HasPrefix(f.Name, "project/"):
			p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(f.Name, "project/")))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				return err
			}
		case strings.HasPrefix(f.Name, "model/"):
			mode, err := agent.ParseMode(strings.TrimSuffix(strings.TrimPrefix(f.Name, "model/"), ".jsonl"))
			if err != nil {
				return fmt.Errorf("demo script %s: %v", f.Name, err)
			}
			s, err := script.Parse(f.Data)
			if err != nil {
				return fmt.Errorf("demo script %s: %v", f.Name, err)
			}
			scripts[mode] = s
		}
	}
	fmt.Fprintf(stdout, "agentls demo: a sample project in %s, a scripted model on loopback, no network.\n", dir)
	runs := []struct {
		mode               agent.Mode
		instruction, title string
	}{
		{agent.ModePlan, "How should Average handle an empty slice?", "1. plan (read-only)"},
		{agent.ModeReview, "Review stats.go.", "2. review (findings become diagnostics)"},
		{agent.ModeExecute, "Make Average safe for an empty slice.", "3. execute (edits proposed as a diff, approved, then written)"},
	}
	for _, r := range runs {
		fmt.Fprintf(stdout, "\n=== %s: agentls %s --file stats.go %q\n", r.title, r.mode, r.instruction)
		srv, err := script.Listen(scripts[r.mode])
		if err != nil {
			return err
		}
		model, err := newModel(srv.URL, "agentls-demo")
		if err != nil {
			srv.Close()
			return err
		}
		code := Exec(ctx, &Options{
			Mode: r.mode, Instruction: r.instruction, Dir: dir, File: "stats.go",
			Approve: ApproveAll, Stdout: stdout, Stderr: stderr,
			Server: &lspserver.Options{NewModel: func() (agent.Model, error) { return model, nil }},
		})
		srv.Close()
		if code != 0 {
			return fmt.Errorf("%s run failed", r.mode)
		}
	}
	final, err := os.ReadFile(filepath.Join(dir, "stats.go"))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n=== final stats.go on disk\n%s\nNext: point agentls at a real model (see README) and run it from your editor.\n", sandbox.VisibleText(string(final)))
	return nil
}
