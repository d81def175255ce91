// Package agent is the engine: the agent loop, conversation state, turn
// limits, streaming from the [Model], sending tool calls to the tools
// gateway, and the events it reports. The OpenAI adapter lives in
// agent/openai, the only package that imports openai-go; agent/llmtest is a
// fake OpenAI-compatible server for tests and the demo.
//
// It must not import lspserver or LSP types, and it makes no path, shell or
// policy decisions itself: those belong to tools and sandbox.
package agent
