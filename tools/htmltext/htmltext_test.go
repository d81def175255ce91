package htmltext

import (
	"net/url"
	"strings"
	"testing"
)

func TestHTMLText_B4(t *testing.T) {
	base, _ := url.Parse("https://pkg.go.dev/net/http")
	cases := []struct{ name, in, want string }{
		{"paragraphs", "<p>Hello,\n   <b>world</b>!</p><p>Second</p>", "Hello, world!\n\nSecond"},
		{"scripts and styles dropped",
			"<head><title>T</title><style>p{x:1}</style><script>alert('x')</script></head>" +
				"<body><noscript>enable JS</noscript><p>text</p><template><p>hidden</p></template></body>",
			"T\n\ntext"},
		{"headings", "<h1>Title</h1><p>a</p><h3> Sub </h3>b", "# Title\n\na\n\n### Sub\n\nb"},
		{"lists", "<ul><li>one</li><li> two <i>2</i></li></ul><ol><li>x</li></ol>", "- one\n- two 2\n\n- x"},
		{"links", `<p>See <a href="/pkg/io">the io package</a> and <a href="https://go.dev/">https://go.dev/</a>.</p>`,
			"See the io package (https://pkg.go.dev/pkg/io) and https://go.dev/."},
		{"unsafe and local links", `<a href="javascript:alert(1)">x</a> <a href="#top">top</a> <a href="mailto:a@b">m</a>`,
			"x top m"},
		{"link without text", `<a href="https://go.dev/x"><img src="i.png"></a>`, "https://go.dev/x"},
		{"link userinfo dropped", `<a href="https://u:p@go.dev/">go</a>`, "go (https://go.dev/)"},
		{"image alt", `<p><img alt="Gopher"> ok</p>`, "[image: Gopher] ok"},
		{"pre kept", "<p>x</p><pre>a  b\n  c</pre><p>y</p>", "x\n\na  b\n  c\n\ny"},
		{"table", "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>", "k | v\na | 1"},
		{"entities", "<p>a &amp; b &lt;c&gt; &nbsp;d</p>", "a & b <c> d"},
		{"broken html", "<p>open <b>bold <div>inner</p> tail <script>never", "open bold\ninner\n\ntail"},
		{"br", "a<br>b<br/>c", "a\nb\nc"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		if got := Convert(strings.NewReader(c.in), base); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestHTMLText_B4_Large(t *testing.T) {
	in := strings.Repeat("<div><p>word <a href='/x'>link</a></p><script>x</script></div>", 5000)
	base, _ := url.Parse("https://h.test/")
	got := Convert(strings.NewReader(in), base)
	if n := strings.Count(got, "link (https://h.test/x)"); strings.Contains(got, "<") || n != 5000 {
		t.Errorf("large document: %d bytes, %d links", len(got), n)
	}
}
