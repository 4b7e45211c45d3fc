package docker

import (
	"context"
	"fmt"

	"github.com/golem-box/golem-box/runner"
	"github.com/moby/moby/client"
)

// Diagnose says whether the engine answers, its version and API, and what
// differs from the OCI backend there.
func (b *Backend) Diagnose(ctx context.Context) runner.Diagnosis {
	d := runner.FromAvailable(b.Name(), b.Available(ctx))
	if !d.Usable {
		return d
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	if v, err := b.cli.ServerVersion(ctx, client.ServerVersionOptions{}); err == nil {
		d.Version = fmt.Sprintf("%s (API %s, negotiated %s)", v.Version, v.APIVersion, b.APIVersion())
	}
	d.Notes = append(d.Notes, runner.Note{Level: "info",
		Msg: "the engine gives a container no user namespace of its own: the command runs as your uid on the host, with no capabilities, no-new-privileges and seccomp",
		Fix: "use the oci or containerd backend for a user namespace, or run dockerd with --userns-remap"})
	if !b.features().RecursiveReadOnly {
		d.Notes = append(d.Notes, runner.Note{Level: "info",
			Msg: "API " + b.APIVersion() + " cannot ask for recursive read-only binds: a read-only mount whose source has submounts is refused",
			Fix: "Docker Engine 25 or later (API 1.44)"})
	}
	return d
}
