// Command floor imports the external packages agentls imports and does
// nothing else: its peak RSS and CPU are what package init of agentls's
// dependencies costs any program that links them (issue 16).
package main

import (
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/coder/acp-go-sdk"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/openai/openai-go/v3/option"
	_ "github.com/openai/openai-go/v3/packages/ssestream"
	_ "github.com/openai/openai-go/v3/shared"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "go.lsp.dev/uri"
	_ "golang.org/x/net/html"
	_ "golang.org/x/net/html/atom"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/text/language"
	_ "golang.org/x/text/message"
	_ "golang.org/x/tools/txtar"
	_ "modernc.org/libc"
	_ "modernc.org/sqlite"
	_ "modernc.org/sqlite/lib"
	_ "mvdan.cc/sh/v3/expand"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
