package policy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/sandbox"
)

// Refusals of consent, wrapped in a *mountspec.PathError.
var (
	// ErrBlocked is a change the mount's approval setting forbids.
	ErrBlocked = errors.New("blocked by policy")
	// ErrNoApprover is a change that needs approval when nobody can be asked.
	ErrNoApprover = errors.New("it needs approval, and no approver is available")
	// ErrNotApproved is a change the approver refused, or could not decide on.
	ErrNotApproved = errors.New("it was not approved")
)

// Approver names in the log for decisions nobody was asked about.
const (
	ByPolicy = "policy"
	ByNobody = "none"
)

// Gate is the sandbox.Guard that asks for consent. It sees a change only
// after the sandbox has checked every boundary, so approval never grants
// what the sandbox forbids. Every decision is logged before the change is
// made; a decision that cannot be logged refuses the change.
type Gate struct {
	// Sandbox is the sandbox the changes are made in, for guidance.
	Sandbox *mountspec.Sandbox
	// Who makes the changes: a worker name, or "golem-box".
	Who string
	// Approver is asked for changes set to ask; nil means nobody can be.
	Approver Approver
	// Log receives every decision; nil logs nothing.
	Log *Log
	// Context bounds an approver's decision; nil means Background.
	Context context.Context
	// Now is the clock of the log; nil means time.Now.
	Now func() time.Time
}

// Allow implements sandbox.Guard.
func (g *Gate) Allow(c sandbox.Change) error {
	kind, setting := "write", c.Approval.Write
	if c.Op == sandbox.OpDelete {
		kind, setting = "delete", c.Approval.Delete
	}
	e := Entry{Who: g.Who, Op: c.Op, Path: c.Path, Mount: c.Mount, Setting: setting}
	var refusal error
	switch setting {
	case mountspec.ApprovalPreApproved:
		e.Approved, e.Approver = true, ByPolicy
	case mountspec.ApprovalBlocked:
		e.Approver = ByPolicy
		refusal = refuse(c, ErrBlocked, fmt.Sprintf("The mount %s has approval.%s: blocked. %s",
			c.Mount, kind, g.where(kind, "Paths where this is not blocked")))
	default: // ask, and anything unknown
		if g.Approver == nil {
			e.Approver = ByNobody
			refusal = refuse(c, ErrNoApprover, fmt.Sprintf(
				"Changes in %s need approval (approval.%s: ask) and nothing was %s. To approve: run the command again with --yes, run it on a terminal to be asked, or set approval.command in golem-box.yaml to a program that decides. To stop asking for this mount, set its approval.%s: preApproved.",
				c.Mount, kind, past(c.Op), kind))
			break
		}
		req := &Request{Who: g.Who, Change: c, Setting: setting, Diff: diff(&c)}
		ctx := g.Context
		if ctx == nil {
			ctx = context.Background()
		}
		a, err := g.Approver.Approve(ctx, req)
		e.Approver, e.Approved, e.Reason = g.Approver.Name(), a.Approved && err == nil, a.Reason
		if err != nil {
			e.Reason = err.Error()
		}
		if !e.Approved {
			why := "Nothing was " + past(c.Op) + "."
			if e.Reason != "" {
				why = fmt.Sprintf("%s said: %s. %s", e.Approver, e.Reason, why)
			}
			refusal = refuse(c, ErrNotApproved, why+" Ask the user what they want instead of trying again.")
		}
	}
	if err := g.Log.Append(e, g.now()); err != nil {
		return fmt.Errorf("refusing to %s %s: the decision could not be logged: %w", c.Op, c.Path, err)
	}
	return refusal
}

func (g *Gate) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func refuse(c sandbox.Change, err error, detail string) error {
	return &mountspec.PathError{Op: c.Op, Path: c.Path, Err: err, Detail: detail}
}

// where lists the writable paths whose kind of change is not blocked.
func (g *Gate) where(kind, label string) string {
	if g.Sandbox == nil {
		return ""
	}
	var ok []string
	s := g.Sandbox
	pick := func(a mountspec.Approval) mountspec.ApprovalMode {
		if kind == "delete" {
			return a.Delete
		}
		return a.Write
	}
	if s.Root != "" && !s.ReadOnly && pick(s.RootApproval()) != mountspec.ApprovalBlocked {
		ok = append(ok, "/")
	}
	for i := range s.Mounts {
		m := &s.Mounts[i]
		if !m.ReadOnly && pick(s.MountApproval(m)) != mountspec.ApprovalBlocked {
			ok = append(ok, m.Target)
		}
	}
	return label + ": " + list(ok) + "."
}

func past(op string) string {
	switch op {
	case sandbox.OpDelete:
		return "deleted"
	case sandbox.OpEdit:
		return "edited"
	case sandbox.OpAppend:
		return "appended"
	}
	return "written"
}
