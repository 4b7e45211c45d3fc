package containerd

import (
	"context"

	"github.com/golem-box/golem-box/runner"
	ocirunner "github.com/golem-box/golem-box/runner/oci"
)

// Diagnose says whether containerd answers and its version, with what is
// known about the runc its shim runs.
func (b *Backend) Diagnose(ctx context.Context) runner.Diagnosis {
	d := runner.FromAvailable(b.Name(), b.Available(ctx))
	if !d.Usable {
		return d
	}
	d.Version = b.Version()
	rc := ocirunner.New(ocirunner.WithRuntime("runc"), ocirunner.WithStateDir(b.stateDir)).Diagnose(ctx)
	if !rc.Usable {
		d.Usable = false
		d.Reason = "its runc shim (" + RuntimeName + ") needs runc: " + rc.Reason
		d.Fix = rc.Fix
		return d
	}
	for _, n := range rc.Notes {
		n.Msg = "runc (run by containerd's shim): " + n.Msg
		d.Notes = append(d.Notes, n)
	}
	return d
}
