// Package prompts holds agentls's prompt templates, embedded with go:embed,
// and typed functions that render them. It owns no logic beyond rendering.
//
// Prompts are the instruction layer only: nothing here is a security
// boundary. Keep them lean, because the system prompt is resent with every
// model request.
package prompts

import (
	"embed"
	"strconv"
	"strings"
)

// The prompts are plain text files with {{name}} placeholders, filled by
// fill. They are not text/template: a program that can execute a
// template may call any exported method by name, so the linker keeps
// every exported method of every type it has, which made the binary 30
// MB larger and every agentls process (the server and each sandbox
// helper) about 6 MiB bigger in RSS, for five fixed prompts (issue 16).
//
//go:embed *.md
var files embed.FS

// Brief names the mode paragraph of the system prompt: what a run is for
// and what it may do (the instruction layer of E4). Its value is the name
// of the mode it briefs, as the model reads it; agent's mode table says
// which brief each mode gets.
type Brief string

// The briefs, one per mode.
const (
	BriefPlan    Brief = "plan"
	BriefReview  Brief = "review"
	BriefExecute Brief = "execute"
)

// SystemData fills the system prompt. It names no tools: the request
// lists the offered tools, and repeating them here would cost every
// request bytes (issue 16).
type SystemData struct {
	Brief Brief // the mode paragraph
}

// System renders the system prompt for one run.
func System(d SystemData) string {
	return fill("system.md", "brief", text("brief-"+string(d.Brief)+".md"))
}

// TaskData fills the user's task message.
type TaskData struct {
	Instruction string
	Path        string // workspace-relative file the command was run on, if any
	Range       string // "L12:C1-L20:C5", 1-based, if a selection was given
	Selection   string // the selected text, if any
}

// Task renders the first user message of a run.
func Task(d TaskData) string {
	var b strings.Builder
	b.WriteString(d.Instruction)
	if d.Path != "" {
		b.WriteString("\n\nFile: " + d.Path)
		if d.Range != "" {
			b.WriteString(" (selection " + d.Range + ")")
		}
	}
	if d.Selection != "" {
		b.WriteString("\n```\n" + d.Selection + "\n```")
	}
	return strings.TrimSpace(b.String())
}

// text is the embedded prompt file name. The files are fixed at compile
// time and tested; a missing one is a bug, and its name still makes a
// usable prompt.
func text(name string) string {
	data, err := files.ReadFile(name)
	if err != nil {
		return name + ": " + err.Error()
	}
	return strings.TrimSpace(string(data))
}

// fill is the prompt file name with each {{key}} of the key, value pairs
// replaced by its value.
func fill(name string, kv ...string) string {
	for i := range kv {
		if i%2 == 0 {
			kv[i] = "{{" + kv[i] + "}}"
		}
	}
	return strings.TrimSpace(strings.NewReplacer(kv...).Replace(text(name)))
}

func itoa(n int) string { return strconv.Itoa(n) }
