package runner

import (
	"context"
	"errors"
	"fmt"
)

// UnavailableError says why a backend cannot run here and what fixes it.
// It matches ErrUnavailable with errors.Is.
type UnavailableError struct {
	Backend string
	Reason  string // "the Docker Engine at unix:///var/run/docker.sock is not reachable (...)"
	Fix     string // a command or an action
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("%s: %s: %s", ErrUnavailable, e.Backend, e.Reason)
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unavailable builds an UnavailableError.
func Unavailable(backend, reason, fix string) error {
	return &UnavailableError{Backend: backend, Reason: reason, Fix: fix}
}

// Note is something doctor reports about a usable backend: a weakness to
// know about (a runtime version with known escapes) or a fact about how
// golem-box works around the host.
type Note struct {
	Level string `json:"level"` // "warning" or "info"
	Msg   string `json:"message"`
	Fix   string `json:"fix,omitempty"`
}

// Diagnosis is what doctor says about one backend.
type Diagnosis struct {
	Backend string `json:"backend"`
	Usable  bool   `json:"usable"`
	Version string `json:"version,omitempty"`
	// Reason and Fix say why the backend is not usable, and how to fix it.
	Reason string `json:"reason,omitempty"`
	Fix    string `json:"fix,omitempty"`
	Notes  []Note `json:"notes,omitempty"`
}

// Diagnoser is a backend that can explain itself beyond Available.
type Diagnoser interface {
	Diagnose(ctx context.Context) Diagnosis
}

// Diagnose asks b about itself: its own Diagnose when it has one, else
// what Available says.
func Diagnose(ctx context.Context, b Backend) Diagnosis {
	var d Diagnosis
	if dg, ok := b.(Diagnoser); ok {
		d = dg.Diagnose(ctx)
	} else {
		d = FromAvailable(b.Name(), b.Available(ctx))
	}
	// What a usable backend documents it cannot enforce is part of what
	// doctor says about it.
	if doc, ok := b.(Documenter); ok && d.Usable {
		for _, l := range doc.Limitations() {
			d.Notes = append(d.Notes, Note{Level: "info", Msg: l})
		}
	}
	return d
}

// FromAvailable turns the answer of Available into a diagnosis.
func FromAvailable(name string, err error) Diagnosis {
	d := Diagnosis{Backend: name, Usable: err == nil}
	var ue *UnavailableError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		d.Reason, d.Fix = ue.Reason, ue.Fix
	default:
		d.Reason = err.Error()
	}
	return d
}
