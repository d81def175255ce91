package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/ext"
	"github.com/agentls/agentls/tools/proposalcheck"
)

// userConfig is the user's config file, config.json, as one command sees
// it: read once, before the command does anything else, by
// [loadUserConfig] — the file's one reader — and shared by every part of
// the command that needs it (the model's settings, the hooks and MCP
// servers).
type userConfig struct {
	Model modelConfig
	Ext   *ext.Config
}

// modelConfig is the model's part of config.json. Environment variables
// override the file; a project never configures the endpoint, so a
// cloned repository cannot send the user's key elsewhere.
type modelConfig struct {
	BaseURL  string `json:"base_url"` // OPENAI_BASE_URL
	APIKey   string `json:"api_key"`  // OPENAI_API_KEY (prefer the variable)
	Model    string `json:"model"`    // AGENTLS_MODEL
	MaxTurns int    `json:"max_turns"`
	// ContextTokens is the model's context window, for compaction (A9);
	// zero means the agent's default.
	ContextTokens int `json:"context_tokens"`
	// StallTimeoutSeconds aborts a model request that sends no byte for
	// this long, before the response headers or between chunks
	// (AGENTLS_STALL_TIMEOUT, a duration such as 30s or a number of
	// seconds); zero means the model client's default of 60 s.
	StallTimeoutSeconds float64 `json:"stall_timeout_seconds"`
}

// configPath is $XDG_CONFIG_HOME/agentls/config.json, or
// ~/.config/agentls/config.json; "" without either variable.
func configPath(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "agentls", "config.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "agentls", "config.json")
	}
	return ""
}

// loadUserConfig reads the user's config file and applies the
// environment on top of its model part. The file goes through the reader
// of untrusted configuration ([tools.ReadUserConfig]: a regular file
// only, opened without blocking, size-capped), so a FIFO, a device or a
// directory there is an error at once, never a hang; a missing file is
// an empty config. Errors may quote the file: print them with
// [sandbox.VisibleText].
func loadUserConfig(getenv func(string) string) (*userConfig, error) {
	path := configPath(getenv)
	c := &userConfig{}
	data, err := tools.ReadUserConfig(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, fmt.Errorf("config %v", err)
	default:
		if err := tools.DecodeUserConfig(data, &c.Model); err != nil {
			return nil, fmt.Errorf("config %s: %v", path, err)
		}
	}
	if c.Ext, err = ext.DecodeUser(path, data, &c.Model, &proposalcheck.UserFile{}); err != nil { // E22: proposal_checks is read per proposal
		return nil, err
	}
	if err := c.Model.fromEnv(getenv); err != nil {
		return nil, err
	}
	if c.Model.StallTimeoutSeconds < 0 {
		return nil, fmt.Errorf("config %s: stall_timeout_seconds must not be negative", path)
	}
	return c, nil
}

// fromEnv applies the environment variables that override the file.
func (c *modelConfig) fromEnv(getenv func(string) string) error {
	if v := getenv("OPENAI_BASE_URL"); v != "" {
		c.BaseURL = v
	}
	if v := getenv("OPENAI_API_KEY"); v != "" {
		c.APIKey = v
	}
	if v := getenv("AGENTLS_MODEL"); v != "" {
		c.Model = v
	}
	if v := getenv("AGENTLS_STALL_TIMEOUT"); v != "" {
		n, err := parseSeconds(v)
		if err != nil {
			return fmt.Errorf("AGENTLS_STALL_TIMEOUT: %v", err)
		}
		c.StallTimeoutSeconds = n
	}
	return nil
}

// StallTimeout is StallTimeoutSeconds as a duration; zero means the
// default.
func (c *modelConfig) StallTimeout() time.Duration {
	return time.Duration(c.StallTimeoutSeconds * float64(time.Second))
}

// String describes c without the key.
func (c *modelConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("model=%q endpoint=%q key=%s", c.Model, c.BaseURL, key)
}

// parseSeconds reads a duration ("90s", "2m") or a number of seconds.
func parseSeconds(v string) (float64, error) {
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d.Seconds(), nil
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) || n > 24*3600 {
		return 0, fmt.Errorf("%q is not a duration (such as 30s) or a number of seconds up to a day", v)
	}
	return n, nil
}

// configError is how every command reports a config file it cannot use:
// the error may quote the file's text (T22).
func configError(err error) string {
	return "agentls: " + sandbox.VisibleText(err.Error())
}
