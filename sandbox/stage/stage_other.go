//go:build !linux

package stage

import (
	"errors"
	"io/fs"
	"time"
)

// errNoStaging: staged execution needs Linux's overlayfs; elsewhere
// commands are never staged, so nothing reaches these.
var errNoStaging = errors.New("stage: staged execution needs Linux")

// Read is not available off Linux.
func Read(upper, root string, started time.Time) (*Set, error) { return nil, errNoStaging }

// Merge is not available off Linux.
func Merge(set *Set, changes []*Change, cp Checkpoint) (*Report, error) { return nil, errNoStaging }

func blocks(string) int64 { return 0 }

func ownedByMe(fs.FileInfo) bool { return true }
