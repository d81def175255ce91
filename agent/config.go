package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// error) and applies the environment on top.
func LoadConfig(path string, getenv func(string) string) (*Config, error) {
	c := &Config{}
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("config %s: %v", path, err)
		default:
			if err := json.Unmarshal(data, c); err != nil {
				return nil, fmt.Errorf("config %s: %v", path, err)
			}
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
