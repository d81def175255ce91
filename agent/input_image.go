package agent

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
)

// Images referenced with @path (A12, seed 002). A reference whose name
// ends in .png, .jpg, .jpeg, .gif or .webp is sent to the model as an
// image part of the task message, not inlined as text. Its type is decided
// by its magic bytes, never by its name; one that cannot be read, is not
// one of those four types or is too large gets "Unable to read image: …"
// after the reference, and the rest of the message goes on.
const (
	maxImageBytes = 5 << 20 // of one image, as most vision APIs take
	maxImages     = 4       // in one message
	// imageTokens is what an image counts for in the context estimate.
	imageTokens = 1000
)

// IsImagePath reports whether a path names a picture the agent sends as
// an image part (by its extension; its content is checked when read).
func IsImagePath(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

// sniffImage returns the MIME type of data by its magic bytes, "" when it
// is none of the four types a model takes.
func sniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// readImage reads one referenced picture. why is the reason it cannot be
// sent, for "Unable to read image: <why>"; "" with the image otherwise.
func readImage(ctx context.Context, p string, count int, read func(context.Context, string) ([]byte, error)) (img Image, why string) {
	if count >= maxImages {
		return img, fmt.Sprintf("more than %d images in one message", maxImages)
	}
	data, err := read(ctx, p)
	if err != nil {
		return img, refReadError(err)
	}
	if len(data) > maxImageBytes {
		return img, fmt.Sprintf("%s is %.1f MiB, over the %d MiB limit", clip(p, 200), float64(len(data))/(1<<20), maxImageBytes>>20)
	}
	mime := sniffImage(data)
	if mime == "" {
		return img, clip(p, 200) + " is not a PNG, JPEG, GIF or WebP image"
	}
	return Image{MIME: mime, Path: p, Data: data}, ""
}

// imagesText is what the model reads of a message's images in the
// compaction transcript and the context estimate: their names.
func imagesText(imgs []Image) string {
	var b strings.Builder
	for _, im := range imgs {
		fmt.Fprintf(&b, " [image %s]", im.Path)
	}
	return b.String()
}
