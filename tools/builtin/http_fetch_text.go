package builtin

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools/htmltext"
)

// fetchText renders a fetched body for the model by its media type: HTML
// turned into text (links resolved against the final URL), other text as
// is (made valid UTF-8), a one-line note for binary content.
func fetchText(res *netguard.FetchResult) string {
	body, mt := res.Body, res.ContentType
	switch {
	case len(body) == 0:
		return ""
	case mt == "text/html" || mt == "application/xhtml+xml":
		base, _ := url.Parse(res.FinalURL)
		return htmltext.Convert(bytes.NewReader(body), base)
	case isTextType(mt) && bytes.IndexByte(body, 0) < 0:
		if !utf8.Valid(body) {
			return strings.ToValidUTF8(string(body), "\uFFFD")
		}
		return string(body)
	}
	if mt == "" {
		mt = "unknown type"
	}
	return fmt.Sprintf("binary content (%s, %d bytes)", mt, res.Size)
}

func isTextType(mt string) bool {
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-ndjson", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql":
		return true
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}
