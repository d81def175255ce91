package exec

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output caps of S4: the bytes of a command's output that are kept in
// memory and shown. Each stream keeps its first 80 % and its last 20 %.
const (
	StdoutCap = 200 << 10
	StderrCap = 56 << 10
	OutputCap = StdoutCap + StderrCap // 256 KiB in all
)

// binarySample is how much of the head binary detection looks at.
const binarySample = 8000

// binaryMagic are file signatures that mark output as binary even when
// the first bytes happen to be printable.
var binaryMagic = [][]byte{
	[]byte("\x7fELF"), []byte("\x89PNG"), []byte("\xff\xd8\xff"), []byte("GIF87a"),
	[]byte("GIF89a"), []byte("\x1f\x8b"), []byte("PK\x03\x04"), []byte("\xfd7zXZ"),
	[]byte("7z\xbc\xaf\x27\x1c"), []byte("BZh91AY&SY"), []byte("\x28\xb5\x2f\xfd"),
	[]byte("%PDF-"), []byte("\xca\xfe\xba\xbe"), []byte("\xcf\xfa\xed\xfe"),
	[]byte("OggS"), []byte("\x1a\x45\xdf\xa3"),
	// Signatures with a NUL in their first bytes (wasm, SQLite, PE) need
	// no entry: the NUL check finds them.
}

// capBuffer is an io.Writer that keeps the first 80 % and the last 20 % of
// at most limit bytes, whatever is written to it, and counts the rest. Its
// memory never exceeds limit. It is not safe for concurrent use.
type capBuffer struct {
	head    []byte // the first headMax bytes written
	headMax int
	ring    []byte // the last tailMax bytes; circular once full
	tailMax int
	next    int // where the ring's next byte goes, once full
	total   int64
}

func newCapBuffer(limit int) *capBuffer {
	h := limit * 4 / 5
	return &capBuffer{headMax: h, tailMax: limit - h}
}

// Write keeps what fits and never fails.
func (b *capBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || b.tailMax == 0 {
		return n, nil
	}
	if b.ring == nil {
		b.ring = make([]byte, 0, b.tailMax)
	}
	if len(p) >= b.tailMax {
		b.ring = append(b.ring[:0], p[len(p)-b.tailMax:]...)
		b.next = 0
		return n, nil
	}
	if room := b.tailMax - len(b.ring); room > 0 {
		k := min(room, len(p))
		b.ring = append(b.ring, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(b.ring[b.next:], p)
		b.next = (b.next + k) % b.tailMax
		p = p[k:]
	}
	return n, nil
}

// Total is the number of bytes written.
func (b *capBuffer) Total() int64 { return b.total }

// tail returns the kept tail in order.
func (b *capBuffer) tail() []byte {
	if len(b.ring) < b.tailMax || b.next == 0 {
		return b.ring
	}
	return append(append(make([]byte, 0, len(b.ring)), b.ring[b.next:]...), b.ring[:b.next]...)
}

// String renders what was kept: the text with a "[… N bytes cut …]"
// marker where the middle was dropped, or a one-line note for binary
// output. Invalid UTF-8 and NUL bytes become U+FFFD.
func (b *capBuffer) String() string {
	if b.total == 0 {
		return ""
	}
	if isBinary(b.head) {
		return binaryNote(b.total)
	}
	tail := b.tail()
	cut := b.total - int64(len(b.head)) - int64(len(tail))
	if cut == 0 {
		return sanitizeUTF8(append(b.head[:len(b.head):len(b.head)], tail...))
	}
	h := trimPartialEnd(b.head)
	t := trimPartialStart(tail)
	cut += int64(len(b.head) - len(h) + len(tail) - len(t))
	return sanitizeUTF8(h) + fmt.Sprintf("\n[… %d bytes cut …]\n", cut) + sanitizeUTF8(t)
}

func binaryNote(n int64) string {
	return fmt.Sprintf("Binary output (%d bytes). Pipe to a file if needed.", n)
}

// isBinary guesses from the first bytes whether output is binary: a known
// file signature, a NUL byte, or more than 30 % of bytes that are invalid
// UTF-8 or control characters other than whitespace, backspace and ESC.
// (Text in a legacy 8-bit encoding stays well under that; it is shown
// with U+FFFD for the bytes that are not UTF-8.)
func isBinary(p []byte) bool {
	if len(p) > binarySample {
		p = p[:binarySample]
	}
	for _, m := range binaryMagic {
		if bytes.HasPrefix(p, m) {
			return true
		}
	}
	if bytes.IndexByte(p, 0) >= 0 {
		return true
	}
	odd := 0
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if !utf8.FullRune(p[i:]) {
				i = len(p) // a rune cut by the sample's end
				continue
			}
			odd++
		case r < 0x20 && !strings.ContainsRune("\t\n\r\f\v\b\x1b", r), r == 0x7f:
			odd++
		}
		i += size
	}
	return odd*10 > len(p)*3
}

// sanitizeUTF8 returns p as valid UTF-8: each run of invalid bytes and
// each NUL becomes one U+FFFD.
func sanitizeUTF8(p []byte) string {
	if utf8.Valid(p) && bytes.IndexByte(p, 0) < 0 {
		return string(p)
	}
	var b strings.Builder
	b.Grow(len(p))
	bad := false
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		i += size
		if (r == utf8.RuneError && size == 1) || r == 0 {
			if !bad {
				b.WriteRune(utf8.RuneError)
			}
			bad = true
			continue
		}
		bad = false
		b.WriteRune(r)
	}
	return b.String()
}

// trimPartialEnd drops a rune cut at the end of p.
func trimPartialEnd(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			break
		}
	}
	return p
}

// trimPartialStart drops continuation bytes of a rune cut at p's start.
func trimPartialStart(p []byte) []byte {
	i := 0
	for i < len(p) && i < utf8.UTFMax-1 && !utf8.RuneStart(p[i]) {
		i++
	}
	return p[i:]
}
