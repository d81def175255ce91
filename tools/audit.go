package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// AuditRecord is one line of the audit log (T10). It never holds raw
// arguments: only a hash of the normalized call.
type AuditRecord struct {
	Time     time.Time `json:"time"`
	Session  string    `json:"session,omitempty"`
	Tool     string    `json:"tool"`
	Risk     Risk      `json:"risk,omitempty"`
	Rule     string    `json:"rule,omitempty"`
	Decision Decision  `json:"decision"`
	// ApprovedBy is who let the call run: policy, user, flag (headless
	// --approve=all answered for the user), diff (the user
	// applied the proposed change in the editor), user(always:SCOPE) (the
	// user answered "always" for the session, workspace or everywhere),
	// or always:SCOPE (an earlier "always" answer at that scope covered
	// it, Grant names it); "" when it was denied, not applied, or never
	// ran.
	ApprovedBy string `json:"approved_by,omitempty"`
	// Grant is the ID of the kept "always" answer (`agentls policy list`)
	// behind an always:SCOPE; "" for one kept in memory.
	Grant string `json:"grant,omitempty"`
	// Source, Origin and Because explain the decision (E21, issue 28):
	// the kind of origin of the rule ([SourcePolicy] …), where it was
	// written ("FILE:LINE", "built-in risk default of profile headless"),
	// and the sentence "asked because …" ([Explanation]).
	Source     string `json:"source,omitempty"`
	Origin     string `json:"origin,omitempty"`
	Because    string `json:"because,omitempty"`
	ArgsSHA256 string `json:"args_sha256"`
	Code       Code   `json:"code,omitempty"`
	// DurationMS is the time from the call to its result, rounded up:
	// only a call that took no time at all is 0.
	DurationMS int64 `json:"duration_ms"`
	// WaitMS is the part of DurationMS spent waiting for the user: the
	// approval, an edit question, a pending applyEdit.
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Edits: hashes of the proposed new content and of what landed.
	ProposedSHA256 string `json:"proposed_sha256,omitempty"`
	AppliedSHA256  string `json:"applied_sha256,omitempty"`
	// UserReason is what the user said when they declined the call.
	UserReason string `json:"user_reason,omitempty"`
}

// AuditLog appends records as JSON lines. Write failures are counted, not
// fatal: auditing must never stop the user's work, and never lose a
// decision silently either: the first failure is told to the function
// given to [AuditLog.Notify] (the server warns the user), and
// [AuditLog.Health] says how many records were lost. Safe for concurrent
// use; a nil *AuditLog discards.
type AuditLog struct {
	mu       sync.Mutex // guards the fields below
	w        io.Writer
	failures int
	lastErr  error
	notify   func(error)
}

// NewAuditLog writes records to w.
func NewAuditLog(w io.Writer) *AuditLog { return &AuditLog{w: w} }

// OpenAuditLog appends to dir/audit.jsonl, creating it private to the user.
func OpenAuditLog(dir string) (*AuditLog, io.Closer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "audit.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return NewAuditLog(f), f, nil
}

// Record appends r.
func (a *AuditLog) Record(r *AuditRecord) {
	if a == nil {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	a.mu.Lock()
	_, err = a.w.Write(append(b, '\n'))
	var notify func(error)
	if err != nil {
		a.failures++
		a.lastErr = err
		if a.failures == 1 {
			notify = a.notify
		}
	}
	a.mu.Unlock()
	if notify != nil {
		notify(err)
	}
}

// Notify sets f to be called once, at the first record that could not be
// written, on the goroutine that recorded it (outside the log's lock).
func (a *AuditLog) Notify(f func(error)) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notify = f
}

// Health returns how many records could not be written, and the last
// error.
func (a *AuditLog) Health() (failures int, last error) {
	if a == nil {
		return 0, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.failures, a.lastErr
}

// CheckAuditLog says whether dir/audit.jsonl can be appended to (or, not
// there yet, created), without writing or creating anything: a health
// line for `agentls version`.
func CheckAuditLog(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, "audit.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s is not a directory", d)
		case err == nil:
			const wOK = 2 // access(2)'s W_OK
			if err := syscall.Access(d, wOK); err != nil {
				return fmt.Errorf("cannot create it in %s: %w", d, err)
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d:
			return err
		}
	}
}

// hashArgs hashes the normalized call: tool, subject and the canonical
// (re-encoded) arguments.
func hashArgs(tool, subject string, args []byte) string {
	var canon any
	if json.Unmarshal(args, &canon) == nil {
		args, _ = json.Marshal(canon) // map keys sorted
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write([]byte(subject))
	h.Write([]byte{0})
	h.Write(args)
	return hex.EncodeToString(h.Sum(nil))
}

// HashContent returns the hex SHA-256 of b, for edit audit fields.
func HashContent(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
