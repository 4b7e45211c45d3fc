package trust

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// hostOS is the platform whose OS sandboxes Route prefers (tests set it).
var hostOS = runtime.GOOS

// Layer is how strongly a backend isolates.
type Layer string

// Layers.
const (
	Container Layer = "container" // its own root filesystem, namespaces, cgroups, seccomp: untrusted content
	OS        Layer = "os"        // an OS sandbox around the host's own files: trusted work
)

// Layers of the backends golem-box knows; aliases map to the same layer.
var layers = map[string]Layer{
	"oci": Container, "oci/runc": Container, "oci/crun": Container, "runc": Container, "crun": Container,
	"containerd": Container, "docker": Container,
	"bwrap": OS, "bubblewrap": OS, "landlock": OS, "seatbelt": OS,
}

// LayerOf is the layer of a backend name ("" when unknown).
func LayerOf(name string) Layer { return layers[name] }

// Preference lists the backends auto tries, in order, for a layer on goos.
func Preference(l Layer, goos string) []string {
	if l == Container {
		return []string{"oci", "containerd", "docker"}
	}
	switch goos {
	case "linux":
		return []string{"bwrap", "landlock"}
	case "darwin":
		return []string{"seatbelt"}
	}
	return nil
}

// Install says what to install for a layer on goos.
func Install(l Layer, goos string) string {
	switch {
	case l == Container:
		return "install a container runtime: sudo apt-get install crun (or runc), or start containerd or the Docker Engine (sudo scripts/setup)"
	case goos == "linux":
		return "install bubblewrap (sudo apt-get install bubblewrap) or boot a kernel with Landlock ABI 3 or later"
	case goos == "darwin":
		return "sandbox-exec ships with macOS: check that /usr/bin/sandbox-exec exists"
	}
	return "golem-box has no OS sandbox for " + goos + "; use a container backend"
}

// Considered is one backend Route looked at.
type Considered struct {
	Backend string `json:"backend"`
	Layer   Layer  `json:"layer"`
	Usable  bool   `json:"usable"`
	// Why says why it was not chosen (unusable, or a better one came first).
	Why string `json:"why,omitempty"`
}

// Decision is where a command runs and why.
type Decision struct {
	Verdict   *Verdict `json:"trust"`
	Requested string   `json:"requested"`
	Backend   string   `json:"backend"`
	Layer     Layer    `json:"layer"`
	// Reasons are the decision in sentences, evidence first.
	Reasons    []string     `json:"reasons"`
	Considered []Considered `json:"considered"`
}

// Probe says whether a backend is usable here (nil) or why not.
type Probe func(ctx context.Context, backend string) error

// Route picks the backend for a verdict. requested is the configured or
// flagged backend ("" or "auto" to choose); requireOS refuses, for trusted
// work, to run without an OS sandbox or a container.
func Route(ctx context.Context, v *Verdict, requested string, requireOS bool, probe Probe) (*Decision, error) {
	d := &Decision{Verdict: v, Requested: requested, Considered: []Considered{}}
	if requested == "" {
		d.Requested = "auto"
	}
	for _, r := range v.Reasons {
		d.Reasons = append(d.Reasons, describe(r, v.Untrusted))
	}
	for _, r := range v.Overridden {
		d.Reasons = append(d.Reasons, "overridden by --trusted: "+describe(r, true))
	}
	if len(v.Reasons) == 0 {
		d.Reasons = append(d.Reasons, fmt.Sprintf("trusted: no mount is marked untrusted and none of the %d files the command can reach carries a provenance mark", v.Scanned))
	}
	if d.Requested != "auto" {
		l := LayerOf(requested)
		if l == "" {
			return nil, fmt.Errorf("backend %q: unknown (known: %s)", requested, strings.Join(known(), ", "))
		}
		if v.Untrusted && l != Container {
			return d, fmt.Errorf("backend %s is an OS sandbox, and this command handles untrusted content (%s): it must run in a container. Use --backend oci (or containerd, docker), or --trusted if you vouch for the content", requested, d.Reasons[0])
		}
		err := probe(ctx, requested)
		d.Considered = append(d.Considered, considered(requested, l, err))
		if err != nil {
			return d, err
		}
		d.Backend, d.Layer = requested, l
		d.Reasons = append(d.Reasons, "backend "+requested+" was asked for explicitly")
		return d, nil
	}
	order := Preference(Container, hostOS)
	want := Container
	if v.Untrusted {
		for _, name := range Preference(OS, hostOS) {
			d.Considered = append(d.Considered, Considered{Backend: name, Layer: OS, Why: "excluded: untrusted content must run in a container"})
		}
	} else {
		want = OS
		order = append(Preference(OS, hostOS), order...)
	}
	for _, name := range order {
		if d.Backend != "" {
			d.Considered = append(d.Considered, Considered{Backend: name, Layer: LayerOf(name), Why: "not tried: " + d.Backend + " comes first"})
			continue
		}
		err := probe(ctx, name)
		d.Considered = append(d.Considered, considered(name, LayerOf(name), err))
		if err == nil {
			d.Backend, d.Layer = name, LayerOf(name)
		}
	}
	switch {
	case d.Backend == "" && want == Container:
		return d, fmt.Errorf("untrusted content must run in a container, and no container backend is usable here: %s", Install(Container, hostOS))
	case d.Backend == "" && requireOS:
		return d, fmt.Errorf("require_os_sandbox is on and no OS sandbox or container is usable here: %s", Install(OS, hostOS))
	case d.Backend == "":
		return d, fmt.Errorf("no backend is usable here: %s, or %s", Install(OS, hostOS), Install(Container, hostOS))
	case want == OS && d.Layer == Container:
		d.Reasons = append(d.Reasons, "no OS sandbox is usable, so this trusted work runs in a container, which is stronger ("+Install(OS, hostOS)+" for faster runs)")
	case want == Container:
		d.Reasons = append(d.Reasons, "untrusted content runs in a container: "+d.Backend+" is the first usable one")
	default:
		d.Reasons = append(d.Reasons, "trusted work runs under the lightest usable OS sandbox: "+d.Backend)
	}
	return d, nil
}

func considered(name string, l Layer, err error) Considered {
	c := Considered{Backend: name, Layer: l, Usable: err == nil}
	if err != nil {
		c.Why = err.Error()
	}
	return c
}

func describe(r Reason, untrusted bool) string {
	switch r.Kind {
	case KindMark:
		return fmt.Sprintf("untrusted: %s carries a provenance mark (%s)", r.Path, r.Detail)
	case KindMount:
		return "untrusted: " + r.Detail
	case KindAttachment:
		return fmt.Sprintf("untrusted: %s is an %s", r.Path, r.Detail)
	case KindUnchecked:
		return fmt.Sprintf("untrusted: %s has %s", r.Path, r.Detail)
	case KindFlag:
		if untrusted {
			return "untrusted: " + r.Detail + " was given"
		}
		return "trusted: " + r.Detail + " was given"
	}
	return r.Detail
}

func known() []string {
	out := make([]string, 0, len(layers))
	for n := range layers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
