package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentls/agentls/tools"
)

// Config is the model configuration. Environment variables override the
// user's config file; a project never configures the endpoint, so a cloned
// repository cannot send the user's key elsewhere.
type Config struct {
	BaseURL  string `json:"base_url"` // OPENAI_BASE_URL
	APIKey   string `json:"api_key"`  // OPENAI_API_KEY (prefer the variable)
	Model    string `json:"model"`    // AGENTLS_MODEL
	MaxTurns int    `json:"max_turns"`
	// ContextTokens is the model's context window, for compaction (A9);
	// zero means DefaultContextTokens.
	ContextTokens int `json:"context_tokens"`
	// StallTimeoutSeconds aborts a model request that sends no byte for
	// this long, before the response headers or between chunks
	// (AGENTLS_STALL_TIMEOUT, a duration such as 30s or a number of
	// seconds); zero means the model client's default of 60 s.
	StallTimeoutSeconds float64 `json:"stall_timeout_seconds"`
}

// StallTimeout is StallTimeoutSeconds as a duration; zero means the
// default.
func (c *Config) StallTimeout() time.Duration {
	return time.Duration(c.StallTimeoutSeconds * float64(time.Second))
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

// DefaultConfigPath is $XDG_CONFIG_HOME/agentls/config.json, or
// ~/.config/agentls/config.json.
func DefaultConfigPath(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "agentls", "config.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "agentls", "config.json")
	}
	return ""
}

// LoadConfig reads the config file at path (a missing file is not an
// error) and applies the environment on top. The file is read by
// [tools.ReadUserConfig], the one reader of it (a FIFO or device there is
// an error, never a hang); its hooks and MCP servers are read by
// tools/ext, which also warns about the keys nobody reads.
func LoadConfig(path string, getenv func(string) string) (*Config, error) {
	c := &Config{}
	data, err := tools.ReadUserConfig(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("config %v", err)
	default:
		if err := tools.DecodeUserConfig(data, c); err != nil {
			return nil, fmt.Errorf("config %s: %v", path, err)
		}
	}
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
			return nil, fmt.Errorf("AGENTLS_STALL_TIMEOUT: %v", err)
		}
		c.StallTimeoutSeconds = n
	}
	if c.StallTimeoutSeconds < 0 {
		return nil, fmt.Errorf("config %s: stall_timeout_seconds must not be negative", path)
	}
	return c, nil
}

// String describes c without the key.
func (c *Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("model=%q endpoint=%q key=%s", c.Model, c.BaseURL, key)
}
