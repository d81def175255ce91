// Package htmltext turns HTML documents into the plain text that
// http_fetch shows the model: headings, list items, table cells and
// links kept readable, scripts and styles dropped.
//
// It owns the HTML parser (golang.org/x/net/html); it is the only agentls
// package that may import it. It must not fetch anything, decide any
// policy or import other agentls packages: it is a pure conversion.
package htmltext
