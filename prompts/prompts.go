// Package prompts holds agentls's prompt templates, embedded with go:embed,
// and typed functions that render them. It owns no logic beyond rendering.
//
// Prompts are the instruction layer only: nothing here is a security
// boundary. Keep them lean, because the system prompt is resent with every
// model request.
package prompts

import (
	"bytes"
	"embed"
	"strings"
	"sync"
	"text/template"
)

//go:embed *.md.tmpl
var files embed.FS

// tmpl is parsed on first use: package init also runs in every sandbox helper.
var tmpl = sync.OnceValue(func() *template.Template { return template.Must(template.ParseFS(files, "*.md.tmpl")) })

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
	return render("system.md.tmpl", struct{ Brief string }{render("brief."+string(d.Brief), nil)})
}

// TaskData fills the user's task message.
type TaskData struct {
	Instruction string
	Path        string // workspace-relative file the command was run on, if any
	Range       string // "L12:C1-L20:C5", 1-based, if a selection was given
	Selection   string // the selected text, if any
}

// Task renders the first user message of a run.
func Task(d TaskData) string { return render("task.md.tmpl", d) }

func render(name string, data any) string {
	var b bytes.Buffer
	if err := tmpl().ExecuteTemplate(&b, name, data); err != nil {
		// The templates are fixed at compile time and tested; an error here
		// is a bug, and the bare data still makes a usable prompt.
		return name + ": " + err.Error()
	}
	return strings.TrimSpace(b.String())
}
