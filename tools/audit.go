package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// AuditRecord is one line of the audit log (T10). It never holds raw
// arguments: only a hash of the normalized call.
type AuditRecord struct {
	Time       time.Time `json:"time"`
	Session    string    `json:"session,omitempty"`
	Tool       string    `json:"tool"`
	Risk       Risk      `json:"risk,omitempty"`
	Rule       string    `json:"rule,omitempty"`
	Decision   Decision  `json:"decision"`
	ApprovedBy string    `json:"approved_by,omitempty"` // policy, user, session, or "" when denied
	ArgsSHA256 string    `json:"args_sha256"`
	Code       Code      `json:"code,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	// WaitMS is the part of DurationMS spent waiting for the user: the
	// approval, an edit question, a pending applyEdit.
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Edits: hashes of the proposed new content and of what landed.
	ProposedSHA256 string `json:"proposed_sha256,omitempty"`
	AppliedSHA256  string `json:"applied_sha256,omitempty"`
}

// AuditLog appends records as JSON lines. Write failures are counted, not
// fatal: auditing must never stop the user's work, and never lose a
// decision silently either (Failures is visible in logs). Safe for
// concurrent use; a nil *AuditLog discards.
type AuditLog struct {
	mu       sync.Mutex // guards w and Failures
	w        io.Writer
	Failures int
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
	defer a.mu.Unlock()
	if _, err := a.w.Write(append(b, '\n')); err != nil {
		a.Failures++
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
