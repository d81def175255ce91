package htmltext

import (
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skippedTags hold no readable text: their content is dropped.
var skippedTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true,
	atom.Select: true,
}

// blockTags start a new line (1) or paragraph (2).
var blockTags = map[atom.Atom]int{
	atom.P: 2, atom.H1: 2, atom.H2: 2, atom.H3: 2, atom.H4: 2, atom.H5: 2, atom.H6: 2,
	atom.Ul: 2, atom.Ol: 2, atom.Dl: 2, atom.Table: 2, atom.Pre: 2, atom.Blockquote: 2,
	atom.Section: 2, atom.Article: 2, atom.Header: 2, atom.Footer: 2, atom.Nav: 2,
	atom.Aside: 2, atom.Main: 2, atom.Figure: 2, atom.Form: 2, atom.Title: 2, atom.Details: 2,
	atom.Div: 1, atom.Li: 1, atom.Tr: 1, atom.Br: 1, atom.Hr: 1, atom.Dt: 1, atom.Dd: 1,
	atom.Figcaption: 1, atom.Summary: 1, atom.Address: 1, atom.Caption: 1,
}

// Convert turns an HTML document into readable plain text: script,
// style and similar elements are dropped; headings become "# …" lines,
// list items "- …" lines, table cells are separated by " | "; links read
// "text (url)" with url resolved against base (only http and https links
// are shown); whitespace is collapsed except inside <pre>. It reads r to
// the end and never fails: broken HTML gives what could be read.
func Convert(r io.Reader, base *url.URL) string {
	z := html.NewTokenizer(r)
	c := &converter{z: z, base: base, linkStart: -1}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			c.closeLink()
			return strings.TrimSpace(c.w.b.String())
		case html.TextToken:
			if c.skip == 0 {
				c.w.text(string(z.Text()), c.pre > 0)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			c.start(tt == html.StartTagToken)
		case html.EndTagToken:
			c.end()
		}
	}
}

// converter is the state of one [Convert].
type converter struct {
	z         *html.Tokenizer
	base      *url.URL
	w         textWriter
	skip, pre int    // depth in skipped elements and in <pre>
	href      string // of the open <a>
	linkStart int    // w.b.Len() where the open link's text began; -1 for none
}

// closeLink ends the open link: its URL follows its text, unless it is
// the text.
func (c *converter) closeLink() {
	if c.linkStart < 0 {
		return
	}
	text := strings.TrimSpace(c.w.b.String()[c.linkStart:])
	switch {
	case c.href == "" || c.href == text:
	case text == "":
		c.w.word(c.href)
	default:
		c.w.b.WriteString(" (" + c.href + ")")
	}
	c.href, c.linkStart = "", -1
}

// start handles a start tag, or a self-closing one when open is false.
func (c *converter) start(open bool) {
	name, hasAttr := c.z.TagName()
	a := atom.Lookup(name)
	if skippedTags[a] {
		if open {
			c.skip++
		}
		return
	}
	if c.skip > 0 {
		return
	}
	attrs := readAttrs(c.z, hasAttr)
	c.w.block(blockTags[a])
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		c.w.prefix(strings.Repeat("#", int(name[1]-'0')) + " ")
	case atom.Li:
		c.w.prefix("- ")
	case atom.Td, atom.Th:
		c.w.cell()
	case atom.Pre:
		c.pre++
	case atom.Img:
		if alt := strings.TrimSpace(attrs["alt"]); alt != "" {
			c.w.word("[image: " + alt + "]")
		}
	case atom.A:
		c.closeLink()
		if open {
			c.href, c.linkStart = linkURL(attrs["href"], c.base), c.w.b.Len()
		}
	}
}

// end handles an end tag.
func (c *converter) end() {
	name, _ := c.z.TagName()
	a := atom.Lookup(name)
	if skippedTags[a] {
		c.skip = max(c.skip-1, 0)
		return
	}
	if c.skip > 0 {
		return
	}
	switch a {
	case atom.A:
		c.closeLink()
	case atom.Pre:
		c.pre = max(c.pre-1, 0)
	}
	c.w.block(blockTags[a])
}

func readAttrs(z *html.Tokenizer, more bool) map[string]string {
	var m map[string]string
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if s := string(k); s == "href" || s == "alt" {
			if m == nil {
				m = map[string]string{}
			}
			m[s] = string(v)
		}
	}
	return m
}

// linkURL resolves href against base; it returns "" for anything but an
// http or https link, and for links within the page.
func linkURL(href string, base *url.URL) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	u.User = nil
	return u.String()
}

// textWriter collapses whitespace and owes separators until the next
// text, so no output starts or ends with blank space.
type textWriter struct {
	b    strings.Builder
	nl   int    // line breaks owed before the next text: 1 or 2
	sep  string // separator owed before the next text on the same line
	glue bool   // the last thing written was a prefix: no separator
}

func (w *textWriter) flush() {
	switch {
	case w.b.Len() == 0:
	case w.nl > 0:
		w.b.WriteString("\n\n"[:min(w.nl, 2)])
	case w.sep != "" && !w.glue:
		w.b.WriteString(w.sep)
	}
	w.nl, w.sep, w.glue = 0, "", false
}

// text writes s, collapsing its whitespace unless pre.
func (w *textWriter) text(s string, pre bool) {
	if pre {
		if s = strings.ReplaceAll(s, "\r", ""); s != "" {
			w.flush()
			w.b.WriteString(s)
		}
		return
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" && w.sep == "" {
			w.sep = " "
		}
		return
	}
	if s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || s[0] == '\f' {
		if w.sep == "" {
			w.sep = " "
		}
	}
	for i, f := range fields {
		if i > 0 {
			w.sep = " "
		}
		w.flush()
		w.b.WriteString(f)
	}
	if last := s[len(s)-1]; last == ' ' || last == '\t' || last == '\n' || last == '\r' || last == '\f' {
		w.sep = " "
	}
}

// word writes s as one piece of text.
func (w *textWriter) word(s string) { w.flush(); w.b.WriteString(s) }

// block owes n line breaks (0: nothing).
func (w *textWriter) block(n int) {
	if n > w.nl {
		w.nl = n
	}
}

// prefix starts the current line with p, glued to the next text.
func (w *textWriter) prefix(p string) { w.flush(); w.b.WriteString(p); w.glue = true }

// cell separates table cells on one line.
func (w *textWriter) cell() {
	if w.nl == 0 && w.b.Len() > 0 {
		w.sep = " | "
	}
}
