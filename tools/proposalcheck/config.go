package proposalcheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/agentls/agentls/sandbox"
)

// Config is the user's "proposal_checks" in their own config.json
// ($XDG_CONFIG_HOME/agentls/config.json): never read from a repository,
// so a hostile repository cannot choose what runs (it gets the detected
// defaults at most).
//
//	"proposal_checks": {
//	  "budget_seconds": 20, "limit_seconds": 120, "off": false,
//	  "projects": {"/home/me/src/app": {"commands": [{"name": "unit tests", "command": "go test ./internal/..."}],
//	                                   "no_detected": false}}
//	}
type Config struct {
	Off           bool               `json:"off"`
	BudgetSeconds float64            `json:"budget_seconds"`
	LimitSeconds  float64            `json:"limit_seconds"`
	Projects      map[string]Project `json:"projects"`
}

// Project is the user's checks for one workspace, keyed by its absolute
// path: commands (the build commands they prefer, the tests they enable)
// run after the detected ones, or instead of them with NoDetected.
type Project struct {
	Commands   []UserCommand `json:"commands"`
	NoDetected bool          `json:"no_detected"`
}

// UserCommand is one command the user enabled.
type UserCommand struct {
	Name    string `json:"name"`
	Command string `json:"command"`
}

// Budget is how long a question waits for the checks.
func (c *Config) Budget() time.Duration { return secs(c.BudgetSeconds, DefaultBudget) }

// Limit is how long the checks may run in all.
func (c *Config) Limit() time.Duration { return secs(c.LimitSeconds, DefaultLimit) }

func secs(s float64, def time.Duration) time.Duration {
	if s <= 0 {
		return def
	}
	return time.Duration(s * float64(time.Second))
}

// Checks are the checks for a change of changed in the workspace at
// root: detected ones, then the user's for this workspace.
func (c *Config) Checks(root string, changed []string) []Check {
	if c != nil && c.Off {
		return nil
	}
	var proj Project
	if c != nil {
		proj = c.Projects[filepath.Clean(root)]
	}
	var out []Check
	if !proj.NoDetected {
		out = Detect(root, changed)
	}
	for _, u := range proj.Commands {
		if u.Command != "" {
			name := u.Name
			if name == "" {
				name = u.Command
			}
			out = append(out, Check{Name: name, Command: u.Command, Go: true})
		}
	}
	return out
}

// LoadUser reads "proposal_checks" from the user's config file at path
// (a regular file, size-capped, as every user config is read). A missing
// file or key is the zero Config: detected checks, default budget.
func LoadUser(path string) (*Config, error) {
	c := &Config{}
	if path == "" {
		return c, nil
	}
	data, err := sandbox.ReadRegularFile(path, sandbox.MaxConfigBytes)
	if err != nil {
		if isNotExist(err) {
			return c, nil
		}
		return c, err
	}
	var f UserFile
	if err := json.Unmarshal(data, &f); err != nil {
		return c, fmt.Errorf("config %s: proposal_checks: invalid JSON", path)
	}
	if f.ProposalChecks != nil {
		c = f.ProposalChecks
	}
	return c, nil
}

// UserConfigPath is $XDG_CONFIG_HOME/agentls/config.json, else
// ~/.config/agentls/config.json; "" without either.
func UserConfigPath(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "agentls", "config.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "agentls", "config.json")
	}
	return ""
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// UserFile is the part of the user's config file this package reads: a
// shape for the config's unknown-key warnings ([tools.UnknownKeys]).
type UserFile struct {
	ProposalChecks *Config `json:"proposal_checks"`
}
