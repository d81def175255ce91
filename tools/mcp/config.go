package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// ServerConfig is one entry of "mcpServers", in the shape every MCP client
// reads: a stdio server has Command (and Args, Env); a streamable-HTTP
// server has URL (and Headers).
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is "stdio", "http" or "streamable-http"; empty means by the
	// fields set. ("sse", the old transport, is not supported.)
	Type string `json:"type,omitempty"`
	// Timeout bounds each call, in seconds; zero means [DefaultCallTimeout].
	Timeout float64 `json:"timeout,omitempty"`
	// Disabled servers are listed but never started.
	Disabled bool `json:"disabled,omitempty"`
}

// Default limits.
const (
	DefaultCallTimeout  = 60 * time.Second
	DefaultStartTimeout = 30 * time.Second
	// MaxDescription bounds the untrusted description of a tool.
	MaxDescription = 1024
	// maxSchema bounds a tool's input schema.
	maxSchema = 64 << 10
	// maxTools bounds the tools taken from one server.
	maxTools = 128
)

// validate says why c cannot be used, or "".
func (c *ServerConfig) validate() string {
	switch t := c.kind(); t {
	case "stdio":
		if strings.TrimSpace(c.Command) == "" {
			return "no command"
		}
	case "http":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return "url is not an http(s) URL"
		}
	default:
		return fmt.Sprintf("transport %q is not supported (want stdio or streamable http)", cut(t, 20))
	}
	if c.Timeout < 0 {
		return "negative timeout"
	}
	return ""
}

func (c *ServerConfig) kind() string {
	switch c.Type {
	case "stdio":
		return "stdio"
	case "http", "streamable-http", "streamableHttp":
		return "http"
	case "":
		if c.URL != "" && c.Command == "" {
			return "http"
		}
		return "stdio"
	}
	return c.Type
}

func (c *ServerConfig) callTimeout() time.Duration {
	if c.Timeout > 0 {
		return time.Duration(c.Timeout * float64(time.Second))
	}
	return DefaultCallTimeout
}

// Pinned is what of a server entry the trust in a project's server is
// pinned to (A17, A18): the transport, command, arguments, URL, and the
// names and values of its environment and headers (a changed PYTHONPATH
// or NODE_OPTIONS value runs other code). The workspace files the entry
// runs are pinned beside it by tools/ext.
func (c *ServerConfig) Pinned() any {
	return []any{c.kind(), c.Command, c.Args, c.URL, c.Env, c.Headers}
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

var (
	invalidNameChars = regexp.MustCompile(`[^a-z0-9_]+`)
	underscores      = regexp.MustCompile(`_{2,}`)
)

// namePart sanitises a server or tool name for a tool name: lower case,
// runs of other characters and of underscores become one underscore, so
// that "__" only ever separates the parts of mcp__SERVER__TOOL.
func namePart(s string) string {
	s = invalidNameChars.ReplaceAllString(strings.ToLower(s), "_")
	return strings.Trim(underscores.ReplaceAllString(s, "_"), "_")
}

// ToolName is the gateway's name for tool of server: mcp__SERVER__TOOL,
// sanitised; a name over 64 bytes keeps its start and gets a hash of the
// whole. It returns "" when a part is empty after sanitising.
func ToolName(server, tool string) string {
	s, t := namePart(server), namePart(tool)
	if s == "" || t == "" {
		return ""
	}
	name := "mcp__" + s + "__" + t
	if len(name) <= 64 {
		return name
	}
	h := hashOf([]byte(server + "\x00" + tool))[:8]
	return strings.TrimRight(name[:64-9], "_") + "_" + h
}

func cut(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
