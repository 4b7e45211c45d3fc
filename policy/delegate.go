package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
)

// Party names one side of a delegation in errors: "worker \"main\"
// (main.worker)" or "the project (golem-box.yaml)".
type Party struct {
	Name string
	File string
}

func (p Party) String() string {
	if p.Name == "" {
		return fmt.Sprintf("the project (%s)", orNone(p.File))
	}
	return fmt.Sprintf("worker %q (%s)", p.Name, orNone(p.File))
}

func orNone(f string) string {
	if f == "" {
		return "flags only"
	}
	return f
}

// Grant computes a worker's effective sandbox: parent, narrowed by the
// caller's restriction for this call, intersected with what the worker
// declares. A nil parent has no file access; a nil result means none. A
// declaration that asks for more than the narrowed parent has is an error
// in the worker's file that names both sides.
func Grant(parent *mountspec.Sandbox, from Party, call mountspec.Restriction, w *Worker) (*mountspec.Sandbox, error) {
	if w.Sandbox == nil {
		return nil, nil // a pure function
	}
	d := w.Sandbox
	bad := func(field, msg, fix string) error {
		return &mountspec.ConfigError{File: w.File, Line: w.lines[field], Field: field, Msg: msg, Fix: fix}
	}
	if parent == nil {
		return nil, bad("sandbox", fmt.Sprintf("worker %q declares a sandbox, but its caller %s has no file access", w.Name, from),
			"remove the sandbox: section (the worker then works on what it is given), or give the caller a sandbox")
	}
	callNote := ""
	base := parent
	if call.Restrict != "" || call.ReadOnly != nil {
		b, err := parent.Restrict(call)
		if err != nil {
			return nil, fmt.Errorf("%s cannot call worker %q with this restriction: %w", from, w.Name, err)
		}
		base = &b
		callNote = " for this call"
	}
	var out mountspec.Sandbox
	out = *base
	out.Root, out.ReadOnly, out.Mounts = "", false, nil
	if d.Restrict != "" || len(d.Mounts) == 0 {
		tree, err := base.Restrict(mountspec.Restriction{Restrict: d.Restrict, ReadOnly: d.ReadOnly})
		switch {
		case errors.Is(err, mountspec.ErrOutsideSandbox):
			return nil, bad("sandbox.restrict", fmt.Sprintf("worker %q asks for %s, but %s has no such path%s (it can read: %s)",
				w.Name, d.Restrict, from, callNote, list(base.ReadablePaths())),
				"restrict to one of the caller's paths, or give the caller that path")
		case errors.Is(err, mountspec.ErrUpgrade):
			sub, _ := base.Restrict(mountspec.Restriction{Restrict: d.Restrict})
			ro := readOnlyPaths(&sub)
			return nil, bad("sandbox.readonly", fmt.Sprintf("worker %q asks for read-write (readonly: false), but %s has %s read-only%s",
				w.Name, from, list(ro), callNote),
				"remove readonly: false (the worker then inherits read-only there), or give the caller write access")
		case err != nil:
			return nil, bad("sandbox.restrict", err.Error(), `write an absolute virtual path such as "/src"`)
		}
		out.Root, out.ReadOnly, out.Mounts = tree.Root, tree.ReadOnly, tree.Mounts
	}
	for i, req := range d.Mounts {
		field := fmt.Sprintf("sandbox.mounts[%d]", i)
		m := base.MountNamed(req.Name)
		if m == nil {
			why := "has no mount of that name"
			if parent.MountNamed(req.Name) != nil {
				why = "does not pass it on for this call"
			}
			return nil, bad(field+".name", fmt.Sprintf("worker %q asks for mount %q, but %s %s (its named mounts: %s)",
				w.Name, req.Name, from, why, list(mountNames(base))),
				"ask for one of those names, or add the mount to the caller")
		}
		want := req.ReadOnly
		if want == nil {
			want = d.ReadOnly
		}
		got := *m
		switch {
		case want == nil:
		case *want:
			got.ReadOnly = true
		case m.ReadOnly:
			return nil, bad(field+".readonly", fmt.Sprintf("worker %q asks for read-write on mount %q (%s), but %s has it read-only%s",
				w.Name, req.Name, m.Target, from, callNote),
				"ask for readonly: true, or make the mount read-write in the caller")
		}
		if j := slices.IndexFunc(out.Mounts, func(o mountspec.Mount) bool { return o.Target == got.Target }); j >= 0 {
			out.Mounts[j] = got
		} else {
			out.Mounts = append(out.Mounts, got)
		}
	}
	return &out, nil
}

// readOnlyPaths lists the read-only paths of s.
func readOnlyPaths(s *mountspec.Sandbox) []string {
	w := s.WritablePaths()
	var out []string
	for _, p := range s.ReadablePaths() {
		if !slices.Contains(w, p) {
			out = append(out, p)
		}
	}
	return out
}

func mountNames(s *mountspec.Sandbox) []string {
	var out []string
	for _, m := range s.Mounts {
		if m.Name != "" {
			out = append(out, m.Name)
		}
	}
	return out
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// Level is one link of a chain of delegations.
type Level struct {
	// Name and File identify the worker; both empty for the project.
	Name string `json:"name,omitempty"`
	File string `json:"file,omitempty"`
	// Depth is 0 for the entry worker and grows by one per call; the
	// project itself is -1.
	Depth int `json:"depth"`
	// Sandbox is the effective sandbox; nil means no file access.
	Sandbox *mountspec.Sandbox `json:"sandbox"`
}

// Chain is the project ceiling and the workers below it, each with its
// effective sandbox.
type Chain struct {
	Config   string  `json:"config,omitempty"`
	MaxDepth int     `json:"max_depth"`
	Levels   []Level `json:"levels"`
}

// Last is the effective level of the last worker.
func (c *Chain) Last() *Level { return &c.Levels[len(c.Levels)-1] }

// Delegate walks a chain: workers[0] is the entry worker, under the
// project's sandbox; each next one is called by the one before. call is the
// restriction of the last call (for a single worker, of its start). A chain
// deeper than delegation.max_depth is an error.
func Delegate(cfg *mountspec.Config, configFile string, workers []*Worker, call mountspec.Restriction) (*Chain, error) {
	max := cfg.Delegation.Depth()
	c := &Chain{Config: configFile, MaxDepth: max}
	ceiling := cfg.Sandbox
	c.Levels = append(c.Levels, Level{Depth: -1, Sandbox: &ceiling})
	if len(workers) == 0 {
		return c, nil
	}
	if depth := len(workers) - 1; depth > max {
		names := make([]string, len(workers))
		for i, w := range workers {
			names[i] = w.Name
		}
		return nil, &mountspec.ConfigError{File: orNone(configFile), Field: "delegation.max_depth",
			Msg: fmt.Sprintf("the chain %s is %d calls deep; the limit is %d", strings.Join(names, " → "), depth, max),
			Fix: "call fewer levels deep, or raise delegation.max_depth"}
	}
	from := Party{File: configFile}
	for i, w := range workers {
		parent := c.Levels[len(c.Levels)-1].Sandbox
		var r mountspec.Restriction
		if i == len(workers)-1 {
			r = call
		}
		sb, err := Grant(parent, from, r, w)
		if err != nil {
			return nil, err
		}
		c.Levels = append(c.Levels, Level{Name: w.Name, File: w.File, Depth: i, Sandbox: sb})
		from = Party{Name: w.Name, File: w.File}
	}
	return c, nil
}
