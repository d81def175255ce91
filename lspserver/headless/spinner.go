package headless

import (
	"fmt"
	"io"
	"time"
)

// spinner shows, on a terminal's stderr, what the run waits for and for
// how long: the model or a command (A19). Its line is redrawn in place
// (a carriage return and erase-line) and cleared before anything else is
// printed; it is only ever made for a terminal, never for a pipe or a
// file. Its methods are called with the printer's mu held; a nil spinner
// does nothing.
type spinner struct {
	w     io.Writer
	now   func() time.Time
	label string // "" hides it
	since time.Time
	frame int
	drawn bool
}

// spinnerFrames are drawn in turn, one per tick.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinnerTick is how often the spinner is redrawn.
const spinnerTick = 100 * time.Millisecond

// set shows label (already made visible) from now on; "" hides the
// spinner.
func (s *spinner) set(label string) {
	if s == nil {
		return
	}
	s.clear()
	s.label, s.since = label, s.now()
	s.draw()
}

// draw redraws the spinner's line.
func (s *spinner) draw() {
	if s == nil || s.label == "" {
		return
	}
	fmt.Fprintf(s.w, "\r\x1b[K%s %s %s", spinnerFrames[s.frame%len(spinnerFrames)], s.label, elapsed(s.now().Sub(s.since)))
	s.frame++
	s.drawn = true
}

// clear erases the spinner's line, if it is drawn.
func (s *spinner) clear() {
	if s == nil || !s.drawn {
		return
	}
	fmt.Fprint(s.w, "\r\x1b[K")
	s.drawn = false
}

// elapsed is d in whole seconds, as people read it: 7s, 1m05s.
func elapsed(d time.Duration) string {
	sec := int(d / time.Second)
	if sec < 60 {
		return fmt.Sprintf("%ds", sec)
	}
	return fmt.Sprintf("%dm%02ds", sec/60, sec%60)
}

// startSpinner gives p a spinner on w, redrawn every tick until the
// returned stop is called; stop clears its line.
func (p *printer) startSpinner(w io.Writer) (stop func()) {
	p.mu.Lock()
	p.spin = &spinner{w: w, now: time.Now}
	p.mu.Unlock()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(spinnerTick)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.mu.Lock()
				p.spin.draw()
				p.mu.Unlock()
			}
		}
	}()
	return func() {
		close(done)
		p.mu.Lock()
		p.spin.set("")
		p.spin = nil
		p.mu.Unlock()
	}
}

// waitFor shows what the run waits for on the spinner; "" hides it.
func (p *printer) waitFor(label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spin == nil {
		return
	}
	p.breakLine()
	p.spin.set(label)
}

// pauseSpinner hides the spinner while a question waits for the person
// at the terminal; the returned resume shows it again, its time going on.
func (p *printer) pauseSpinner() (resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spin == nil {
		return func() {}
	}
	p.breakLine()
	label, since := p.spin.label, p.spin.since
	p.spin.label = ""
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.spin != nil && p.spin.label == "" {
			p.spin.label, p.spin.since = label, since
			p.spin.draw()
		}
	}
}
