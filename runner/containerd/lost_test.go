package containerd

import (
	"context"
	"testing"

	"github.com/containerd/containerd/v2/core/leases"
	"github.com/golem-box/golem-box/runner/runnertest"
	"github.com/golem-box/golem-box/runner/runstate"
	"github.com/stretchr/testify/require"
)

// TestDaemonLostMidRun: containerd goes away (for this client) while the
// command runs; the run ends with an error that says so, and what the
// real daemon still holds is then removed through the real socket.
func TestDaemonLostMidRun(t *testing.T) {
	real := New(WithStateDir(t.TempDir()))
	cli, err := real.client(context.Background())
	require.NoError(t, err)
	filter := `labels."` + LabelOwner + `"==` + `"` + runstate.OwnerStamp() + `"`
	running := func() bool {
		ctrs, err := cli.Containers(context.Background(), filter)
		require.NoError(t, err)
		for _, c := range ctrs {
			if task, err := c.Task(context.Background(), nil); err == nil {
				if st, err := task.Status(context.Background()); err == nil && st.Status == "running" {
					return true
				}
			}
		}
		return false
	}
	t.Cleanup(func() {
		ctrs, _ := cli.Containers(context.Background(), filter)
		for _, c := range ctrs {
			require.NoError(t, real.cleanup(cli, c.ID()))
		}
		ls, _ := cli.LeasesService().List(context.Background(), filter)
		for _, l := range ls {
			_ = cli.LeasesService().Delete(context.Background(), leases.Lease{ID: l.ID})
		}
	})
	p := runnertest.NewProxy(t, DefaultAddress)
	b := New(WithAddress(p.Path), WithStateDir(t.TempDir()))
	runnertest.DaemonLost(t, b, p, running)
}
