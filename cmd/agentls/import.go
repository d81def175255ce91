package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/ext"
	"github.com/agentls/agentls/tools/importcfg"
	"github.com/agentls/agentls/tools/proposalcheck"
)

// importSettings is `agentls import claude|codex [--write]` (issue 28):
// it reads the settings the user has for Claude Code or Codex, the user's
// and the workspace's, and prints for every entry whether agentls honours
// it already, translates it (and to what) or ignores it (and why). Only
// with --write does it write, and only the user's own config.json and
// policy.json, merged with what they hold; a project's allow rules,
// hooks and servers are never imported.
func (c *cli) importSettings(_ context.Context, name string, args []string) int {
	fs := c.flags(name)
	write := fs.Bool("write", false, "write what translates into your agentls config.json and policy.json (never a project's file)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	rootFlag := fs.String("root", ".", "the workspace `DIR` whose project settings are read")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 1 || rest[0] != "claude" && rest[0] != "codex" {
		return c.badUsage(name)
	}
	home := c.getenv("HOME")
	if home == "" {
		return c.fail(name, errors.New("HOME is not set: no user settings to read"))
	}
	root, err := filepath.Abs(*rootFlag)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return c.fail(name, fmt.Errorf("--root: %v", err))
	}
	env := importcfg.Env{Home: home, Root: root, ClaudeDir: c.getenv("CLAUDE_CONFIG_DIR"), CodexDir: c.getenv("CODEX_HOME")}
	var rep *importcfg.Report
	if rest[0] == "claude" {
		rep = importcfg.Claude(env)
	} else {
		rep = importcfg.Codex(env)
	}
	var out importOutcome
	if *write {
		out, err = c.writeImport(&rep.Plan)
	}
	if *asJSON {
		c.printImportJSON(rep, &out, *write, err)
	} else {
		c.printImport(rep, &out, *write, err)
	}
	if err != nil {
		return 1
	}
	return 0
}

// importOutcome is what --write did.
type importOutcome struct {
	Written []string `json:"written"` // the files written
	Changes []string `json:"changes"` // a line per change
}

// writeImport merges the plan into the user's policy.json and config.json.
// Both merges are made, and the files checked, before either is written:
// a damaged file refuses the whole write.
func (c *cli) writeImport(p *importcfg.Plan) (importOutcome, error) {
	var out importOutcome
	policyPath, cfgPath := userPolicyPath(c.getenv), configPath(c.getenv)
	if policyPath == "" || cfgPath == "" {
		return out, errors.New("no config directory: set HOME or XDG_CONFIG_HOME")
	}
	policyPart := *p
	policyPart.Model, policyPart.BaseURL, policyPart.Hooks, policyPart.MCPServers = "", "", nil, nil
	cfgPart := importcfg.Plan{Model: p.Model, BaseURL: p.BaseURL, Hooks: p.Hooks, MCPServers: p.MCPServers}
	targets := []importTarget{
		{"policy.json", policyPath, &policyPart, importcfg.MergePolicy, checkPolicy},
		{"config.json", cfgPath, &cfgPart, importcfg.MergeConfig, checkConfig},
	}
	var jobs []importJob
	for _, t := range targets {
		j, changes, err := t.merge()
		if err != nil {
			return out, err
		}
		if j != nil {
			jobs = append(jobs, *j)
		}
		out.Changes = append(out.Changes, prefixed(t.name+" ", changes)...)
	}
	for _, j := range jobs {
		if err := importcfg.WriteFile(j.path, j.data, j.check); err != nil {
			return out, fmt.Errorf("writing %s: %v", j.path, err)
		}
		out.Written = append(out.Written, j.path)
	}
	return out, nil
}

// importTarget is one user file --write merges a part of the plan into.
type importTarget struct {
	name, path string
	part       *importcfg.Plan
	mergeFn    func([]byte, *importcfg.Plan) ([]byte, []string, error)
	check      func(string) error
}

// importJob is a merged file waiting to be written.
type importJob struct {
	path  string
	data  []byte
	check func(string) error
}

// merge reads the target's file, checks it, and merges its part of the
// plan: the job is nil when nothing changes.
func (t importTarget) merge() (*importJob, []string, error) {
	if t.part.Empty() {
		return nil, nil, nil
	}
	existing, err := readExisting(t.path, t.check)
	if err != nil {
		return nil, nil, err
	}
	data, changes, err := t.mergeFn(existing, t.part)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w; nothing written", t.path, err)
	}
	if len(changes) == 0 {
		return nil, nil, nil
	}
	return &importJob{t.path, data, t.check}, changes, nil
}

func prefixed(p string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

// readExisting reads the user's file at path, nil when missing, and has
// check (agentls's own loader) accept it: a damaged file is never merged
// into or written over.
func readExisting(path string, check func(string) error) ([]byte, error) {
	data, err := tools.ReadUserConfig(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%v; nothing written", err)
	}
	if err := check(path); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); fix it first: nothing written", path, err)
	}
	return data, nil
}

// checkPolicy loads the policy file at path as every run does.
func checkPolicy(path string) error {
	_, err := tools.LoadPolicy(tools.ProfileEditor, path, "")
	return err
}

// checkConfig decodes the config file at path as [loadUserConfig] does.
func checkConfig(path string) error {
	data, err := tools.ReadUserConfig(path)
	if err != nil {
		return err
	}
	var m modelConfig
	if err := tools.DecodeUserConfig(data, &m); err != nil {
		return err
	}
	_, err = ext.DecodeUser(path, data, &m, &proposalcheck.UserFile{})
	return err
}

// printImport prints the report for a person: per file, each entry with
// its status, the agentls form and why. Everything from the files is
// shown with its control bytes made visible (T22).
func (c *cli) printImport(rep *importcfg.Report, out *importOutcome, write bool, werr error) {
	w := c.stdout
	n := rep.Counts()
	fmt.Fprintf(w, "agentls import %s: %d entries: %d translated, %d honoured, %d ignored\n", rep.Source,
		len(rep.Entries), n[importcfg.Translated], n[importcfg.Honoured], n[importcfg.Ignored])
	for _, f := range rep.Files {
		fmt.Fprintf(w, "\n%s", sandbox.Visible(f.Path))
		switch f.State {
		case "missing":
			fmt.Fprintln(w, ": not found")
			continue
		case "unreadable":
			fmt.Fprintf(w, ": unreadable, nothing of it imported: %s\n", sandbox.Visible(f.Error))
			continue
		}
		fmt.Fprintln(w)
		for _, e := range rep.Entries {
			if e.File != f.Path {
				continue
			}
			line := fmt.Sprintf("  %-10s  %s", e.Status, sandbox.Visible(e.Key))
			if e.Value != "" {
				line += "  " + sandbox.Visible(e.Value)
			}
			fmt.Fprintln(w, line)
			for _, t := range e.To {
				fmt.Fprintf(w, "              → %s\n", sandbox.Visible(t))
			}
			if e.Why != "" {
				fmt.Fprintf(w, "              %s\n", sandbox.Visible(e.Why))
			}
		}
	}
	fmt.Fprintln(w)
	switch {
	case werr != nil:
		fmt.Fprintf(c.stderr, "agentls import: %s\n", sandbox.Visible(werr.Error()))
	case rep.Plan.Empty():
		fmt.Fprintln(w, "Nothing to write.")
	case !write:
		fmt.Fprintf(w, "Nothing written. With --write, what translates is added to %s and %s (never to a project's file).\n",
			sandbox.Visible(userPolicyPath(c.getenv)), sandbox.Visible(configPath(c.getenv)))
	case len(out.Written) == 0:
		fmt.Fprintln(w, "Nothing written: your agentls configuration has all of it already.")
	default:
		for _, ch := range out.Changes {
			fmt.Fprintf(w, "  %s\n", sandbox.Visible(ch))
		}
		fmt.Fprintf(w, "Written: %s\n", sandbox.Visible(strings.Join(out.Written, ", ")))
	}
}

// printImportJSON prints the report as one JSON object.
func (c *cli) printImportJSON(rep *importcfg.Report, out *importOutcome, write bool, werr error) {
	v := struct {
		*importcfg.Report
		Write  bool           `json:"write"`
		Result *importOutcome `json:"result,omitempty"`
		Error  string         `json:"error,omitempty"`
	}{Report: rep, Write: write}
	if write {
		v.Result = out
	}
	if werr != nil {
		v.Error = werr.Error()
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(c.stderr, "agentls import: %v\n", err)
	}
}
