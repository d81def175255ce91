// Package agent is the engine: the agent loop, conversation state, turn
// limits, streaming from the [Model], sending tool calls to the tools
// gateway, and the events it reports. The OpenAI adapter lives in
// agent/openai, the only package that imports openai-go; agent/script is
// the scripted OpenAI-compatible server of the demo, and agent/llmtest its
// test helpers.
//
// The engine never trusts the model. Every interaction gets the three
// layers of DESIGN.md (instruction, parameter, fallback), and every
// fallback is reported as an [Event] and logged (A14):
//
//   - mode.go: [Mode], the table of what plan, review and execute runs
//     offer: tools, prompt brief, read-only-ness (E4, E5, B7).
//   - loop.go: [Run], the turn loop and the tool phase; tool calls decide
//     the phase whatever the finish reason says (A6).
//   - ask.go: one model request and its answer-level fallbacks: an empty
//     answer, an incomplete stream and a stall are retried once; then what
//     arrived decides (A2, A4), except that a second stall fails the run
//     however much arrived before it (A5). HTTP retries (429, 5xx, overload) are the
//     adapter's, announced through [Request.OnRetry] (A5).
//   - normalize.go: the [Normalizer] pipeline run before every request:
//     [ToolResultPairing] then [OrphanToolResultRemover] (A7).
//   - strict.go: [Strict] and [Check], which turn silent repairs into
//     failures for evaluation runs (A8).
//   - compact.go: compaction when the context budget runs out, with its
//     circuit breaker, micro-compaction and digest fallbacks (A9).
//   - subagent.go: the agent tool, [SubAgentTool], built per run with its
//     parent's options, and its defences against recursion (A10). The
//     nesting depth is the one value a tool call's context carries.
//   - input.go: [ExpandInput], @path references and the input limit (A12).
//   - events.go, observe.go: the events, their levels, and logging.
//
// It must not import lspserver or LSP types, and it makes no path, shell or
// policy decisions itself: those belong to tools and sandbox.
package agent
