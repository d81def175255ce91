// Package ext loads and starts the user's extensions of a workspace: hooks
// ([hooks]) and MCP servers ([mcp]), configured in the user config file
// with the shapes users know (A17) — "hooks" as in Claude Code's settings,
// "mcpServers" as in every MCP client — and, for the project,
// .agentls/hooks.json and .agentls/mcp.json.
//
// A project's entries run only once the user trusted them explicitly
// (`agentls trust`, or the editor's prompt): the trust is pinned to a hash
// of the entry (command, arguments, URL, the names and values of env
// variables and headers; for hooks the event, matcher and fail-closed
// settings too), of what it runs (A18: the content of every workspace
// file its words name — a hook's script, a server's entry file — and the
// start-up files of every workspace directory they name, such as a
// PYTHONPATH directory's sitecustomize.py and *.pth) and, for an MCP
// server, of its tool definitions; any change asks again, and is checked
// again before each run of a hook and each restart of a server. Trust
// recorded by an older pin format is asked about again. Without someone to ask
// (headless runs, call, mcp list) untrusted entries never start. Project
// files are untrusted input (T20): regular files inside the root only,
// size-capped, read without blocking, and errors about them never quote
// their content.
//
// It must not import agent or lspserver.
package ext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
)

// Project files, relative to the workspace root.
const (
	ProjectHooksFile = ".agentls/hooks.json"
	ProjectMCPFile   = ".agentls/mcp.json"
)

// maxConfig bounds a configuration file.
const maxConfig = 256 << 10

// Config is the extension part of a config file: the user's config.json,
// or a project's hooks.json / mcp.json.
type Config struct {
	Hooks      hooks.Config                `json:"hooks,omitempty"`
	MCPServers map[string]mcp.ServerConfig `json:"mcpServers,omitempty"`
	// Warnings are the file's keys that nobody reads (A18: a key copied
	// from another tool, such as a misspelt or unsupported setting, must
	// not be dropped silently); [Start] reports them.
	Warnings []string `json:"-"`
}

// DecodeUser decodes the extension part of the user's config file, data,
// read from path by the file's one reader (cmd/agentls, through
// [tools.ReadUserConfig]); nil data is a missing file, an empty config.
// The file is the user's own, so its errors may name it. others are the
// shapes of the file's other parts (the model's settings): keys none of
// them nor the extensions read are warned about.
func DecodeUser(path string, data []byte, others ...any) (*Config, error) {
	c := &Config{}
	if data == nil {
		return c, nil
	}
	if err := tools.DecodeUserConfig(data, c); err != nil {
		return nil, fmt.Errorf("config %s: %v", path, err)
	}
	for _, w := range tools.UnknownKeys(data, append([]any{c}, others...)...) {
		c.Warnings = append(c.Warnings, "config "+path+": "+w)
	}
	return c, nil
}

// The shapes of the project files: each holds its own part only.
type (
	hooksFile struct {
		Hooks hooks.Config `json:"hooks"`
	}
	mcpFile struct {
		MCPServers map[string]mcp.ServerConfig `json:"mcpServers"`
	}
)

// LoadProject reads the project's hooks.json and mcp.json under root as
// untrusted input (T20). A missing file is no entries; a file that is not
// a regular file inside the root, too large, or not valid JSON is an error
// that names the file and never its content. Keys that are not read (an
// "mcpServers" in hooks.json, say) are warnings in [Config.Warnings].
func LoadProject(root string) (*Config, error) {
	c := &Config{}
	var h hooksFile
	var m mcpFile
	for _, f := range []struct {
		rel string
		v   any
	}{{ProjectHooksFile, &h}, {ProjectMCPFile, &m}} {
		warnings, err := readProjectFile(root, f.rel, f.v)
		if err != nil {
			return nil, err
		}
		c.Warnings = append(c.Warnings, warnings...)
	}
	c.Hooks, c.MCPServers = h.Hooks, m.MCPServers
	return c, nil
}

func readProjectFile(root, rel string, v any) (warnings []string, err error) {
	// The one reader of untrusted configuration (T20): a regular file
	// inside the root only, without blocking, size-capped, and errors that
	// never say what is behind the file.
	data, err := sandbox.ReadConfigFile(root, rel, maxConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("project file %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("project file %s: not valid JSON (at byte %d)", rel, se.Offset)
		case errors.As(err, &te):
			return nil, fmt.Errorf("project file %s: a value has the wrong type (at byte %d)", rel, te.Offset)
		}
		return nil, fmt.Errorf("project file %s: not valid JSON", rel)
	}
	if dec.More() {
		return nil, fmt.Errorf("project file %s: data after the JSON object", rel)
	}
	for _, w := range tools.UnknownKeys(data, v) {
		warnings = append(warnings, "project file "+rel+": "+w)
	}
	return warnings, nil
}
