package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// Limits of the user's input (A12).
const (
	// MaxInputChars bounds the instruction; the rest is cut with a message
	// to split the request.
	MaxInputChars = 100000
	maxRefBytes   = 20000 // of one inlined file
	maxRefTotal   = 60000 // of all inlined files
	maxRefs       = 10
)

// ErrPathRefused is wrapped by a reference reader (RunOptions.ReadRef) for
// a path it will not read, such as one outside the workspace.
var ErrPathRefused = errors.New("path refused")

// ExpandInput prepares the user's instruction (A12). Input over
// [MaxInputChars] characters is cut, with a message to split it. Each
// @path reference is read with read and inlined after the text in a
// fenced block (bounded in size); a missing file or a path read refuses
// (it wraps [ErrPathRefused], e.g. outside the workspace) gets a note
// right after the reference, whose text stays as it was. A nil read
// inlines nothing. The events say what happened, for the observer.
func ExpandInput(ctx context.Context, instruction string, read func(ctx context.Context, path string) ([]byte, error)) (string, []Event) {
	text, _, events := ReadInput(ctx, instruction, read)
	return text, events
}

// ReadInput is [ExpandInput] that also returns the pictures the
// instruction references (input_image.go), to be sent as image parts.
func ReadInput(ctx context.Context, instruction string, read func(ctx context.Context, path string) ([]byte, error)) (string, []Image, []Event) {
	var events []Event
	var images []Image
	if n := utf8.RuneCountInString(instruction); n > MaxInputChars {
		cut := 0
		for i := range instruction {
			if cut == MaxInputChars {
				instruction = instruction[:i]
				break
			}
			cut++
		}
		instruction += "\n\n[input cut at 100,000 characters: split it into smaller requests]"
		events = append(events, Event{Kind: EventWarning, Code: "input_cut",
			Message: fmt.Sprintf("the input has %d characters; cut at %d: split it into smaller requests", n, MaxInputChars)})
	}
	if read == nil {
		return instruction, nil, events
	}
	var text, files strings.Builder
	last, total, count := 0, 0, 0
	done := map[string]bool{}
	for _, m := range findRefs(instruction) {
		token := instruction[m.start:m.end]
		end := m.end
		path := strings.Trim(token, `"`)
		if !strings.HasPrefix(token, `"`) {
			trimmed := strings.TrimRight(path, ".,:;!?")
			end -= len(path) - len(trimmed)
			path = trimmed
		}
		text.WriteString(instruction[last:end])
		last = end
		if path == "" || done[path] || ctx.Err() != nil {
			continue
		}
		done[path] = true
		if IsImagePath(path) {
			var ev Event
			images, ev = attachImage(ctx, &text, path, images, read)
			events = append(events, ev)
			continue
		}
		note, ev := "", Event{Kind: EventWarning}
		data, err := []byte(nil), error(nil)
		if count >= maxRefs || total >= maxRefTotal {
			note, ev.Code, ev.Message = "not inlined: too many references", "ref_skipped", "too many @references; not inlined: "+clip(path, 200)
		} else {
			data, err = read(ctx, path)
			switch {
			case err == nil:
			case errors.Is(err, fs.ErrNotExist):
				if !strings.ContainsAny(path, "./") {
					continue // "@alice" is a name, not a file
				}
				note, ev.Code, ev.Message = "file not found", "ref_missing", "file not found: "+clip(path, 200)
			case errors.Is(err, ErrPathRefused), errors.Is(err, fs.ErrPermission):
				note, ev.Code, ev.Message = "refused: outside the workspace", "ref_refused", "refused @reference outside the workspace: "+clip(path, 200)
			default:
				note, ev.Code, ev.Message = "could not be read", "ref_unreadable", "could not read @reference: "+clip(path, 200)
			}
		}
		if err == nil && note == "" && (bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)) {
			note, ev.Code, ev.Message = "binary file, not inlined", "ref_binary", "binary @reference not inlined: "+clip(path, 200)
		}
		if note != "" {
			fmt.Fprintf(&text, " [%s]", note)
			events = append(events, ev)
			continue
		}
		count++
		body, extra := string(data), ""
		if limit := min(maxRefBytes, maxRefTotal-total); len(body) > limit {
			body = strings.ToValidUTF8(body[:limit], "")
			extra = fmt.Sprintf("[… cut at %d of %d bytes; read the file for the rest]\n", limit, len(data))
		}
		total += len(body)
		fence := fenceFor(body)
		fmt.Fprintf(&files, "\n@%s:\n%s\n%s\n%s\n%s", path, fence, strings.TrimRight(body, "\n"), fence, extra)
		events = append(events, Event{Kind: EventInput,
			Message: fmt.Sprintf("inlined %s (%d bytes)", clip(path, 200), len(body))})
	}
	text.WriteString(instruction[last:])
	if files.Len() > 0 {
		text.WriteString("\n\nReferenced files:\n")
		text.WriteString(files.String())
	}
	return strings.TrimRight(text.String(), "\n"), images, events
}

// attachImage reads the picture at p and adds it to images, or notes
// after the reference why it cannot be sent.
func attachImage(ctx context.Context, text *strings.Builder, p string, images []Image, read func(context.Context, string) ([]byte, error)) ([]Image, Event) {
	img, why := readImage(ctx, p, len(images), read)
	if why != "" {
		fmt.Fprintf(text, " [Unable to read image: %s]", why)
		return images, Event{Kind: EventWarning, Code: "image_unreadable", Message: "Unable to read image: " + why}
	}
	text.WriteString(" [image attached]")
	return append(images, img), Event{Kind: EventInput,
		Message: fmt.Sprintf("attached the image %s (%s, %d bytes)", clip(p, 200), img.MIME, len(img.Data))}
}

// refReadError says in a few words why a reference could not be read.
func refReadError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "file not found"
	case errors.Is(err, ErrPathRefused), errors.Is(err, fs.ErrPermission):
		return "refused: outside the workspace"
	}
	return "could not be read"
}

// fenceFor returns a backtick fence longer than any run of backticks in s,
// so that a file cannot close its own block.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// expandInput applies ReadInput to the task and reports its events.
func (r *run) expandInput(ctx context.Context, instruction string) (string, []Image) {
	out, images, events := ReadInput(ctx, instruction, r.opts.ReadRef)
	for _, e := range events {
		r.emit(e)
	}
	return out, images
}
